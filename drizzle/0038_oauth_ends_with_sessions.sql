CREATE INDEX "oidc_payloads_account_idx" ON "oidc_payloads" USING btree ("account_id");--> statement-breakpoint
-- N14: whatever ends every session of an account (users.session_version bumped: sign out everywhere,
-- PIN change or reset, e-mail or phone change, a new second factor, removal from a merchant) also ends
-- what apps hold through "Sign in with Chargeport": grants, access and refresh tokens, codes, device
-- codes and the provider's own sessions. Every writer (verbs, admin CLI, psql) does, because the
-- database does, in the same statement as the bump.
CREATE FUNCTION "revoke_oauth_of_account"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "oidc_payloads"
  WHERE "account_id" = NEW."id"
     OR "grant_id" IN (SELECT "id" FROM "oidc_payloads" WHERE "model" = 'Grant' AND "account_id" = NEW."id");
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "users_session_end_revokes_oauth" AFTER UPDATE OF "session_version" ON "users" FOR EACH ROW
  WHEN (NEW."session_version" IS DISTINCT FROM OLD."session_version")
  EXECUTE FUNCTION "revoke_oauth_of_account"();
