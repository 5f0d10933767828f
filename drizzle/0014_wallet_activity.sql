CREATE TYPE "public"."incoming_transfer_status" AS ENUM('pending', 'confirmed');--> statement-breakpoint
ALTER TYPE "public"."transfer_purpose" ADD VALUE 'wallet_send';--> statement-breakpoint
CREATE TABLE "wallet_incoming_transfers" (
	"id" text PRIMARY KEY NOT NULL,
	"chain" text NOT NULL,
	"tx_hash" text NOT NULL,
	"log_index" integer NOT NULL,
	"from_address" text NOT NULL,
	"to_address" text NOT NULL,
	"token_address" text NOT NULL,
	"amount_base_units" numeric(78, 0) NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" text NOT NULL,
	"block_time" timestamp with time zone NOT NULL,
	"status" "incoming_transfer_status" DEFAULT 'pending' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wallet_sends" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"transfer_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wallet_transfer_cursors" (
	"chain" text PRIMARY KEY NOT NULL,
	"last_block" bigint NOT NULL,
	"last_block_hash" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "wallet_sends" ADD CONSTRAINT "wallet_sends_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet_sends" ADD CONSTRAINT "wallet_sends_transfer_id_outbound_transfers_id_fk" FOREIGN KEY ("transfer_id") REFERENCES "public"."outbound_transfers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "wallet_incoming_transfers_chain_tx_log_idx" ON "wallet_incoming_transfers" USING btree ("chain","tx_hash","log_index");--> statement-breakpoint
CREATE INDEX "wallet_incoming_transfers_to_idx" ON "wallet_incoming_transfers" USING btree ("to_address","block_time" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "wallet_incoming_transfers_block_idx" ON "wallet_incoming_transfers" USING btree ("chain","block_number");--> statement-breakpoint
CREATE UNIQUE INDEX "wallet_sends_transfer_idx" ON "wallet_sends" USING btree ("transfer_id");--> statement-breakpoint
CREATE INDEX "wallet_sends_user_idx" ON "wallet_sends" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "outbound_transfers_from_idx" ON "outbound_transfers" USING btree ("from_address","created_at" DESC NULLS LAST);