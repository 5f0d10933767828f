CREATE TABLE "open_charge_counts" (
	"merchant_id" text NOT NULL,
	"mode" "api_key_mode" NOT NULL,
	"publishable_open" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "open_charge_counts_merchant_id_mode_pk" PRIMARY KEY("merchant_id","mode")
);
--> statement-breakpoint
DROP INDEX "charges_open_idx";--> statement-breakpoint
ALTER TABLE "charges" ADD COLUMN "via_publishable_key" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "open_charge_counts" ADD CONSTRAINT "open_charge_counts_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- Custom SQL. Charges made with publishable keys so far are marked, then counted per merchant and mode.
UPDATE "charges" c SET "via_publishable_key" = true FROM "api_keys" k WHERE k."id" = c."api_key_id" AND k."kind" = 'publishable';--> statement-breakpoint
-- The count follows every status change, whoever writes it (createCharge, expiry, cancel, settlement).
-- Only publishable-key charges fire it (the WHEN clauses): secret-key charges pay nothing for it.
CREATE FUNCTION "count_open_publishable_charges"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  delta integer := 0;
  target_merchant text;
  target_mode "api_key_mode";
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.status = 'pending' THEN
    delta := delta - 1;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.status = 'pending' THEN
    delta := delta + 1;
  END IF;
  IF delta = 0 THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'DELETE' THEN
    target_merchant := OLD.merchant_id;
    target_mode := OLD.mode;
  ELSE
    target_merchant := NEW.merchant_id;
    target_mode := NEW.mode;
  END IF;
  INSERT INTO open_charge_counts (merchant_id, mode, publishable_open) VALUES (target_merchant, target_mode, delta)
  ON CONFLICT (merchant_id, mode) DO UPDATE SET publishable_open = open_charge_counts.publishable_open + excluded.publishable_open;
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "charges_count_open_publishable_insert" AFTER INSERT ON "charges" FOR EACH ROW
  WHEN (NEW.via_publishable_key AND NEW.status = 'pending')
  EXECUTE FUNCTION "count_open_publishable_charges"();--> statement-breakpoint
CREATE TRIGGER "charges_count_open_publishable_update" AFTER UPDATE OF "status" ON "charges" FOR EACH ROW
  WHEN (NEW.via_publishable_key AND (OLD.status = 'pending') IS DISTINCT FROM (NEW.status = 'pending'))
  EXECUTE FUNCTION "count_open_publishable_charges"();--> statement-breakpoint
CREATE TRIGGER "charges_count_open_publishable_delete" AFTER DELETE ON "charges" FOR EACH ROW
  WHEN (OLD.via_publishable_key AND OLD.status = 'pending')
  EXECUTE FUNCTION "count_open_publishable_charges"();--> statement-breakpoint
INSERT INTO "open_charge_counts" ("merchant_id", "mode", "publishable_open")
SELECT "merchant_id", "mode", count(*)::int FROM "charges" WHERE "via_publishable_key" AND "status" = 'pending' GROUP BY 1, 2;
