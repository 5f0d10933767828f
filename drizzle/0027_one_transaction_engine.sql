CREATE TYPE "public"."transfer_attempt_kind" AS ENUM('original', 'fee_bump', 'cancel');--> statement-breakpoint
ALTER TYPE "public"."transfer_purpose" ADD VALUE 'refund';--> statement-breakpoint
ALTER TYPE "public"."transfer_purpose" ADD VALUE 'swap_approve';--> statement-breakpoint
ALTER TYPE "public"."transfer_purpose" ADD VALUE 'swap';--> statement-breakpoint
ALTER TYPE "public"."transfer_status" ADD VALUE 'included' BEFORE 'confirmed';--> statement-breakpoint
CREATE TABLE "outbound_transfer_attempts" (
	"id" text PRIMARY KEY NOT NULL,
	"transfer_id" text NOT NULL,
	"chain" text NOT NULL,
	"kind" "transfer_attempt_kind" NOT NULL,
	"tx_hash" text NOT NULL,
	"raw_transaction" text NOT NULL,
	"max_fee_per_gas" numeric(78, 0) NOT NULL,
	"max_priority_fee_per_gas" numeric(78, 0) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sweep_schedule" (
	"charge_id" text PRIMARY KEY NOT NULL,
	"due_at" timestamp with time zone,
	"sign_errors" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"stuck_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "outbound_transfers_open_idx";--> statement-breakpoint
DROP INDEX "swap_executions_from_idx";--> statement-breakpoint
ALTER TABLE "outbound_transfers" ADD COLUMN "call_to" text;--> statement-breakpoint
ALTER TABLE "outbound_transfers" ADD COLUMN "call_value" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "outbound_transfers" ADD COLUMN "call_data" text;--> statement-breakpoint
ALTER TABLE "outbound_transfers" ADD COLUMN "gas_limit" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "outbound_transfers" ADD COLUMN "max_fee_per_gas" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "outbound_transfers" ADD COLUMN "max_priority_fee_per_gas" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "outbound_transfers" ADD COLUMN "depends_on_transfer_ids" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "outbound_transfers" ADD COLUMN "idempotency_scope" text;--> statement-breakpoint
ALTER TABLE "outbound_transfers" ADD COLUMN "idempotency_key" text;--> statement-breakpoint
ALTER TABLE "outbound_transfers" ADD COLUMN "sponsor_merchant_id" text;--> statement-breakpoint
ALTER TABLE "outbound_transfers" ADD COLUMN "sponsor_user_id" text;--> statement-breakpoint
ALTER TABLE "outbound_transfers" ADD COLUMN "included_block_number" bigint;--> statement-breakpoint
ALTER TABLE "outbound_transfers" ADD COLUMN "included_block_hash" text;--> statement-breakpoint
ALTER TABLE "outbound_transfers" ADD COLUMN "gas_fee_base_units" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "outbound_transfers" ADD COLUMN "broadcast_failures" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "outbound_transfers" ADD COLUMN "fee_bumps" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "outbound_transfers" ADD COLUMN "last_broadcast_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "outbound_transfers" ADD COLUMN "nonce_taken_seen_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "outbound_transfers" ADD COLUMN "next_check_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "swap_executions" ADD COLUMN "approve_transfer_id" text;--> statement-breakpoint
ALTER TABLE "swap_executions" ADD COLUMN "swap_transfer_id" text;--> statement-breakpoint
ALTER TABLE "outbound_transfer_attempts" ADD CONSTRAINT "outbound_transfer_attempts_transfer_id_outbound_transfers_id_fk" FOREIGN KEY ("transfer_id") REFERENCES "public"."outbound_transfers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sweep_schedule" ADD CONSTRAINT "sweep_schedule_charge_id_charges_id_fk" FOREIGN KEY ("charge_id") REFERENCES "public"."charges"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "outbound_transfer_attempts_tx_idx" ON "outbound_transfer_attempts" USING btree ("chain","tx_hash");--> statement-breakpoint
CREATE INDEX "outbound_transfer_attempts_transfer_idx" ON "outbound_transfer_attempts" USING btree ("transfer_id","created_at");--> statement-breakpoint
CREATE INDEX "sweep_schedule_due_idx" ON "sweep_schedule" USING btree ("due_at") WHERE "sweep_schedule"."due_at" is not null;--> statement-breakpoint
ALTER TABLE "swap_executions" ADD CONSTRAINT "swap_executions_approve_transfer_id_outbound_transfers_id_fk" FOREIGN KEY ("approve_transfer_id") REFERENCES "public"."outbound_transfers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "swap_executions" ADD CONSTRAINT "swap_executions_swap_transfer_id_outbound_transfers_id_fk" FOREIGN KEY ("swap_transfer_id") REFERENCES "public"."outbound_transfers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "outbound_transfers_sender_idx" ON "outbound_transfers" USING btree ("chain","from_address","nonce");--> statement-breakpoint
CREATE INDEX "outbound_transfers_due_idx" ON "outbound_transfers" USING btree ("next_check_at") WHERE "outbound_transfers"."status" not in ('confirmed', 'failed');--> statement-breakpoint
CREATE INDEX "outbound_transfers_sponsor_user_idx" ON "outbound_transfers" USING btree ("sponsor_user_id","created_at") WHERE "outbound_transfers"."sponsor_user_id" is not null;--> statement-breakpoint
CREATE INDEX "outbound_transfers_sponsor_merchant_idx" ON "outbound_transfers" USING btree ("sponsor_merchant_id","created_at") WHERE "outbound_transfers"."sponsor_merchant_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "outbound_transfers_idempotency_idx" ON "outbound_transfers" USING btree ("idempotency_scope","idempotency_key") WHERE "outbound_transfers"."idempotency_key" is not null;--> statement-breakpoint
-- Custom SQL. Every EVM transfer recorded so far becomes its own first attempt (its fees were not kept: 0 marks unknown).
INSERT INTO "outbound_transfer_attempts" ("id", "transfer_id", "chain", "kind", "tx_hash", "raw_transaction", "max_fee_per_gas", "max_priority_fee_per_gas", "created_at")
SELECT 'ota_' || substr(md5("id"), 1, 22), "id", "chain", 'original', "tx_hash", "raw_transaction", 0, 0, "created_at"
FROM "outbound_transfers" WHERE "raw_transaction" LIKE '0x%';--> statement-breakpoint
-- The sweep schedule (lib/payments/sweep-deposits.ts) is armed by the database whoever writes: when a
-- charge succeeds, and when a counted payment to a succeeded charge is confirmed. An armed row is due now;
-- the sweep job clears, defers or backs it off.
CREATE FUNCTION "arm_sweep"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  target text;
BEGIN
  IF TG_TABLE_NAME = 'charges' THEN
    target := NEW.id;
  ELSE
    SELECT c.id INTO target FROM charges c WHERE c.id = NEW.charge_id AND c.status = 'succeeded';
    IF target IS NULL THEN
      RETURN NULL;
    END IF;
  END IF;
  INSERT INTO sweep_schedule (charge_id, due_at) VALUES (target, now())
  ON CONFLICT (charge_id) DO UPDATE SET due_at = least(coalesce(sweep_schedule.due_at, now()), now()), stuck_at = NULL, updated_at = now();
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "charges_arm_sweep" AFTER UPDATE OF "status" ON "charges" FOR EACH ROW
  WHEN (NEW.status = 'succeeded' AND OLD.status IS DISTINCT FROM 'succeeded')
  EXECUTE FUNCTION "arm_sweep"();--> statement-breakpoint
CREATE TRIGGER "payments_arm_sweep" AFTER INSERT OR UPDATE OF "status", "is_late" ON "payments" FOR EACH ROW
  WHEN (NEW.status = 'confirmed' AND NOT NEW.is_late)
  EXECUTE FUNCTION "arm_sweep"();--> statement-breakpoint
-- Succeeded charges that may still owe a sweep today get a row at once.
INSERT INTO "sweep_schedule" ("charge_id", "due_at")
SELECT c.id, now() FROM "charges" c
WHERE c.status = 'succeeded'
  AND (SELECT coalesce(sum(p.amount_base_units), 0) FROM "payments" p WHERE p.charge_id = c.id AND p.status = 'confirmed' AND NOT p.is_late)
    > (SELECT coalesce(sum(t.amount_base_units), 0) FROM "outbound_transfers" t WHERE t.charge_id = c.id AND t.purpose = 'sweep' AND t.status <> 'failed');
