CREATE TYPE "public"."onramp_order_purpose" AS ENUM('wallet_topup', 'charge_payment', 'swap_funding');--> statement-breakpoint
CREATE TYPE "public"."onramp_order_status" AS ENUM('created', 'pending', 'completed', 'failed', 'expired');--> statement-breakpoint
CREATE TABLE "onramp_order_events" (
	"id" text PRIMARY KEY NOT NULL,
	"order_id" text NOT NULL,
	"from_status" "onramp_order_status",
	"to_status" "onramp_order_status" NOT NULL,
	"provider_status" text,
	"source" text NOT NULL,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "onramp_orders" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text,
	"charge_id" text,
	"purpose" "onramp_order_purpose" DEFAULT 'wallet_topup' NOT NULL,
	"provider_id" text NOT NULL,
	"provider_order_id" text,
	"chain" text NOT NULL,
	"token_symbol" text NOT NULL,
	"token_address" text NOT NULL,
	"token_decimals" integer NOT NULL,
	"wallet_address" text NOT NULL,
	"wallet_label" text,
	"country" text NOT NULL,
	"payment_method" text NOT NULL,
	"fiat_currency" text NOT NULL,
	"requested_base_units" numeric(78, 0) NOT NULL,
	"crypto_base_units" numeric(78, 0) NOT NULL,
	"raised_to_minimum" boolean DEFAULT false NOT NULL,
	"quote" jsonb NOT NULL,
	"fiat_total" numeric(30, 8) NOT NULL,
	"status" "onramp_order_status" DEFAULT 'created' NOT NULL,
	"provider_status" text,
	"failure_reason" text,
	"delivered_base_units" numeric(78, 0),
	"delivery_tx_hash" text,
	"checkout_url" text,
	"expires_at" timestamp with time zone NOT NULL,
	"last_provider_update_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "onramp_providers" (
	"id" text PRIMARY KEY NOT NULL,
	"display_name" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"facts" jsonb NOT NULL,
	"reviewed_on" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "onramp_webhook_receipts" (
	"id" text PRIMARY KEY NOT NULL,
	"provider_id" text NOT NULL,
	"body_sha256" text NOT NULL,
	"order_id" text,
	"outcome" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "onramp_order_events" ADD CONSTRAINT "onramp_order_events_order_id_onramp_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."onramp_orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "onramp_orders" ADD CONSTRAINT "onramp_orders_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "onramp_orders" ADD CONSTRAINT "onramp_orders_charge_id_charges_id_fk" FOREIGN KEY ("charge_id") REFERENCES "public"."charges"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "onramp_orders" ADD CONSTRAINT "onramp_orders_provider_id_onramp_providers_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."onramp_providers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "onramp_order_events_order_idx" ON "onramp_order_events" USING btree ("order_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "onramp_orders_provider_order_idx" ON "onramp_orders" USING btree ("provider_id","provider_order_id");--> statement-breakpoint
CREATE INDEX "onramp_orders_user_idx" ON "onramp_orders" USING btree ("user_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "onramp_orders_wallet_idx" ON "onramp_orders" USING btree ("wallet_address","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "onramp_orders_charge_idx" ON "onramp_orders" USING btree ("charge_id");--> statement-breakpoint
CREATE INDEX "onramp_orders_open_idx" ON "onramp_orders" USING btree ("expires_at") WHERE "onramp_orders"."status" in ('created', 'pending');--> statement-breakpoint
CREATE UNIQUE INDEX "onramp_webhook_receipts_body_idx" ON "onramp_webhook_receipts" USING btree ("provider_id","body_sha256");