CREATE TYPE "public"."refund_source" AS ENUM('deposit_address', 'merchant_wallet');--> statement-breakpoint
CREATE TABLE "refunds" (
	"id" text PRIMARY KEY NOT NULL,
	"charge_id" text NOT NULL,
	"merchant_id" text NOT NULL,
	"mode" "api_key_mode" NOT NULL,
	"transfer_id" text NOT NULL,
	"chain" text NOT NULL,
	"token_address" text NOT NULL,
	"amount_base_units" numeric(78, 0) NOT NULL,
	"destination" text NOT NULL,
	"source" "refund_source" NOT NULL,
	"reason" text,
	"actor" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_charge_id_charges_id_fk" FOREIGN KEY ("charge_id") REFERENCES "public"."charges"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_transfer_id_outbound_transfers_id_fk" FOREIGN KEY ("transfer_id") REFERENCES "public"."outbound_transfers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "refunds_charge_idx" ON "refunds" USING btree ("charge_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "refunds_transfer_idx" ON "refunds" USING btree ("transfer_id");