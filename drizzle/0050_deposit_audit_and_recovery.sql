CREATE TYPE "public"."deposit_recovery_status" AS ENUM('requested', 'sent');--> statement-breakpoint
ALTER TYPE "public"."transfer_purpose" ADD VALUE 'recovery';--> statement-breakpoint
CREATE TABLE "deposit_recoveries" (
	"id" text PRIMARY KEY NOT NULL,
	"chain" text NOT NULL,
	"charge_id" text NOT NULL,
	"from_address" text NOT NULL,
	"token_address" text NOT NULL,
	"amount_base_units" numeric(78, 0) NOT NULL,
	"to_address" text NOT NULL,
	"reason" text NOT NULL,
	"requested_by" text NOT NULL,
	"approved_by" text,
	"approved_at" timestamp with time zone,
	"transfer_id" text,
	"status" "deposit_recovery_status" DEFAULT 'requested' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "stray_deposits" (
	"id" text PRIMARY KEY NOT NULL,
	"chain" text NOT NULL,
	"charge_id" text NOT NULL,
	"address" text NOT NULL,
	"token_address" text NOT NULL,
	"amount_base_units" numeric(78, 0) NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "deposit_addresses" ADD COLUMN "last_audited_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "deposit_recoveries_charge_idx" ON "deposit_recoveries" USING btree ("charge_id");--> statement-breakpoint
CREATE UNIQUE INDEX "stray_deposits_block_idx" ON "stray_deposits" USING btree ("chain","address","token_address","block_number");--> statement-breakpoint
CREATE INDEX "stray_deposits_charge_idx" ON "stray_deposits" USING btree ("charge_id");--> statement-breakpoint
CREATE INDEX "deposit_addresses_audit_idx" ON "deposit_addresses" USING btree ("chain","last_audited_at" NULLS FIRST);