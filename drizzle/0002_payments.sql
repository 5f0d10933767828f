CREATE TYPE "public"."payment_status" AS ENUM('pending', 'confirmed', 'dropped');--> statement-breakpoint
CREATE TYPE "public"."transfer_purpose" AS ENUM('balance_payment', 'sweep');--> statement-breakpoint
CREATE TYPE "public"."transfer_status" AS ENUM('signed', 'broadcast', 'confirmed', 'failed');--> statement-breakpoint
CREATE SEQUENCE "public"."deposit_derivation_index" INCREMENT BY 1 MINVALUE 0 MAXVALUE 9223372036854775807 START WITH 0 CACHE 1;--> statement-breakpoint
CREATE TABLE "chain_cursors" (
	"chain" text PRIMARY KEY NOT NULL,
	"last_block" bigint NOT NULL,
	"last_block_hash" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "deposit_addresses" (
	"id" text PRIMARY KEY NOT NULL,
	"charge_id" text NOT NULL,
	"chain" text NOT NULL,
	"family" "wallet_family" NOT NULL,
	"address" text NOT NULL,
	"derivation_index" integer NOT NULL,
	"watch_until" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "outbound_transfers" (
	"id" text PRIMARY KEY NOT NULL,
	"charge_id" text,
	"purpose" "transfer_purpose" NOT NULL,
	"chain" text NOT NULL,
	"from_address" text NOT NULL,
	"to_address" text NOT NULL,
	"token_address" text NOT NULL,
	"amount_base_units" numeric(78, 0) NOT NULL,
	"nonce" integer NOT NULL,
	"tx_hash" text NOT NULL,
	"raw_transaction" text NOT NULL,
	"status" "transfer_status" DEFAULT 'signed' NOT NULL,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments" (
	"id" text PRIMARY KEY NOT NULL,
	"charge_id" text NOT NULL,
	"chain" text NOT NULL,
	"tx_hash" text NOT NULL,
	"log_index" integer NOT NULL,
	"from_address" text NOT NULL,
	"to_address" text NOT NULL,
	"token_address" text NOT NULL,
	"amount_base_units" numeric(78, 0) NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" text NOT NULL,
	"status" "payment_status" DEFAULT 'pending' NOT NULL,
	"is_late" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "deposit_addresses" ADD CONSTRAINT "deposit_addresses_charge_id_charges_id_fk" FOREIGN KEY ("charge_id") REFERENCES "public"."charges"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outbound_transfers" ADD CONSTRAINT "outbound_transfers_charge_id_charges_id_fk" FOREIGN KEY ("charge_id") REFERENCES "public"."charges"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_charge_id_charges_id_fk" FOREIGN KEY ("charge_id") REFERENCES "public"."charges"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "deposit_addresses_charge_idx" ON "deposit_addresses" USING btree ("charge_id");--> statement-breakpoint
CREATE UNIQUE INDEX "deposit_addresses_address_idx" ON "deposit_addresses" USING btree ("chain","address");--> statement-breakpoint
CREATE UNIQUE INDEX "deposit_addresses_index_idx" ON "deposit_addresses" USING btree ("family","derivation_index");--> statement-breakpoint
CREATE UNIQUE INDEX "outbound_transfers_tx_idx" ON "outbound_transfers" USING btree ("chain","tx_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "outbound_transfers_one_payment_idx" ON "outbound_transfers" USING btree ("charge_id") WHERE "outbound_transfers"."purpose" = 'balance_payment' and "outbound_transfers"."status" <> 'failed';--> statement-breakpoint
CREATE UNIQUE INDEX "payments_chain_tx_log_idx" ON "payments" USING btree ("chain","tx_hash","log_index");--> statement-breakpoint
CREATE INDEX "payments_charge_idx" ON "payments" USING btree ("charge_id");--> statement-breakpoint
CREATE INDEX "payments_pending_idx" ON "payments" USING btree ("chain") WHERE "payments"."status" = 'pending';