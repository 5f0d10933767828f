CREATE TYPE "public"."sandbox_session_status" AS ENUM('open', 'authenticating', 'processing', 'completed', 'failed');--> statement-breakpoint
CREATE TABLE "sandbox_provider_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_order_id" text NOT NULL,
	"chain" text NOT NULL,
	"token_symbol" text NOT NULL,
	"token_decimals" integer NOT NULL,
	"crypto_base_units" numeric(78, 0) NOT NULL,
	"wallet_address" text NOT NULL,
	"fiat_currency" text NOT NULL,
	"fiat_amount" numeric(30, 8) NOT NULL,
	"payment_method" text NOT NULL,
	"country" text NOT NULL,
	"redirect_url" text NOT NULL,
	"email" text,
	"status" "sandbox_session_status" DEFAULT 'open' NOT NULL,
	"paid_with" text,
	"card_last4" text,
	"failure_reason" text,
	"delivery_started_at" timestamp with time zone,
	"tx_hash" text,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "sandbox_provider_sessions_partner_order_idx" ON "sandbox_provider_sessions" USING btree ("partner_order_id");