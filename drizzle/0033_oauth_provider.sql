CREATE TYPE "public"."oauth_client_type" AS ENUM('public', 'confidential');--> statement-breakpoint
CREATE TYPE "public"."oauth_payment_request_status" AS ENUM('pending', 'confirmed', 'declined', 'expired');--> statement-breakpoint
CREATE TABLE "oauth_clients" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"name" text NOT NULL,
	"logo_url" text,
	"redirect_uris" text[] NOT NULL,
	"client_type" "oauth_client_type" NOT NULL,
	"sealed_secret" text,
	"secret_created_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oauth_payment_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"user_id" text NOT NULL,
	"charge_id" text NOT NULL,
	"user_code" text NOT NULL,
	"status" "oauth_payment_request_status" DEFAULT 'pending' NOT NULL,
	"transfer_id" text,
	"tx_hash" text,
	"expires_at" timestamp with time zone NOT NULL,
	"decided_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oidc_payloads" (
	"model" text NOT NULL,
	"id" text NOT NULL,
	"payload" jsonb NOT NULL,
	"grant_id" text,
	"user_code" text,
	"uid" text,
	"account_id" text,
	"client_id" text,
	"expires_at" timestamp with time zone,
	"consumed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oidc_signing_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"alg" text NOT NULL,
	"sealed_private_jwk" text NOT NULL,
	"public_jwk" jsonb NOT NULL,
	"retired_at" timestamp with time zone,
	"published_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "oauth_clients" ADD CONSTRAINT "oauth_clients_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_payment_requests" ADD CONSTRAINT "oauth_payment_requests_client_id_oauth_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."oauth_clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_payment_requests" ADD CONSTRAINT "oauth_payment_requests_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_payment_requests" ADD CONSTRAINT "oauth_payment_requests_charge_id_charges_id_fk" FOREIGN KEY ("charge_id") REFERENCES "public"."charges"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "oauth_clients_merchant_idx" ON "oauth_clients" USING btree ("merchant_id");--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_payment_requests_user_code_idx" ON "oauth_payment_requests" USING btree ("user_code") WHERE "oauth_payment_requests"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "oauth_payment_requests_charge_idx" ON "oauth_payment_requests" USING btree ("charge_id");--> statement-breakpoint
CREATE UNIQUE INDEX "oidc_payloads_model_id_idx" ON "oidc_payloads" USING btree ("model","id");--> statement-breakpoint
CREATE INDEX "oidc_payloads_grant_idx" ON "oidc_payloads" USING btree ("grant_id");--> statement-breakpoint
CREATE INDEX "oidc_payloads_user_code_idx" ON "oidc_payloads" USING btree ("model","user_code");--> statement-breakpoint
CREATE INDEX "oidc_payloads_uid_idx" ON "oidc_payloads" USING btree ("model","uid");--> statement-breakpoint
CREATE INDEX "oidc_payloads_grants_idx" ON "oidc_payloads" USING btree ("client_id","account_id") WHERE "oidc_payloads"."model" = 'Grant';--> statement-breakpoint
CREATE INDEX "oidc_payloads_expires_idx" ON "oidc_payloads" USING btree ("expires_at");