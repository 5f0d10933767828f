-- Custom SQL migration: tell every app instance when what an API request is authenticated with
-- changes, so their in-process credential caches (lib/api-keys/credential-cache.ts) drop it at once.
-- The payload is the merchant id; listeners evict that merchant's cached keys and token rules.
-- Every writer (dashboard, admin CLI, a hand-written UPDATE in psql) notifies, because the database does.
-- NOTIFY is transactional: it is sent at commit, never for a rolled-back change.
CREATE FUNCTION "notify_credentials_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'merchants' THEN
    PERFORM pg_notify('chargeport_credentials', OLD.id);
    RETURN NULL;
  END IF;
  IF TG_OP <> 'INSERT' THEN
    PERFORM pg_notify('chargeport_credentials', OLD.merchant_id);
  END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.merchant_id IS DISTINCT FROM OLD.merchant_id) THEN
    PERFORM pg_notify('chargeport_credentials', NEW.merchant_id);
  END IF;
  RETURN NULL;
END;
$$;--> statement-breakpoint
-- A key's last_used_at (written about once a minute while it is used) does not change what it may do.
CREATE TRIGGER "api_keys_credentials_changed" AFTER UPDATE ON "api_keys" FOR EACH ROW
  WHEN ((OLD.merchant_id, OLD.mode, OLD.kind, OLD.name, OLD.hash, OLD.revoked_at) IS DISTINCT FROM (NEW.merchant_id, NEW.mode, NEW.kind, NEW.name, NEW.hash, NEW.revoked_at))
  EXECUTE FUNCTION "notify_credentials_changed"();--> statement-breakpoint
CREATE TRIGGER "api_keys_credentials_deleted" AFTER DELETE ON "api_keys" FOR EACH ROW EXECUTE FUNCTION "notify_credentials_changed"();--> statement-breakpoint
CREATE TRIGGER "merchants_credentials_changed" AFTER UPDATE OR DELETE ON "merchants" FOR EACH ROW EXECUTE FUNCTION "notify_credentials_changed"();--> statement-breakpoint
-- Token rules: a new row may disable a registry token or add a custom one, so inserts count too.
CREATE TRIGGER "merchant_tokens_credentials_changed" AFTER INSERT OR UPDATE OR DELETE ON "merchant_tokens" FOR EACH ROW EXECUTE FUNCTION "notify_credentials_changed"();
