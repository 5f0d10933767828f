CREATE TYPE "public"."webauthn_ceremony" AS ENUM('register', 'sign_in', 'step_up');--> statement-breakpoint
ALTER TYPE "public"."code_purpose" ADD VALUE 'change_email';--> statement-breakpoint
ALTER TYPE "public"."code_purpose" ADD VALUE 'change_email_old';--> statement-breakpoint
CREATE TABLE "passkeys" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"credential_id" text NOT NULL,
	"public_key" text NOT NULL,
	"counter" integer DEFAULT 0 NOT NULL,
	"transports" text[] DEFAULT '{}' NOT NULL,
	"name" text NOT NULL,
	"last_used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "recovery_codes" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"code_hash" text NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webauthn_challenges" (
	"challenge" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"ceremony" "webauthn_ceremony" NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "merchant_members_user_idx";--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "allowed_origins" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "allowed_redirect_origins" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "totp_secret" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "totp_enabled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "totp_last_step" integer;--> statement-breakpoint
ALTER TABLE "merchant_members" ADD COLUMN "owner_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "passkeys" ADD CONSTRAINT "passkeys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recovery_codes" ADD CONSTRAINT "recovery_codes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webauthn_challenges" ADD CONSTRAINT "webauthn_challenges_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "passkeys_credential_idx" ON "passkeys" USING btree ("credential_id");--> statement-breakpoint
CREATE INDEX "passkeys_user_idx" ON "passkeys" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "recovery_codes_user_idx" ON "recovery_codes" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "charges_open_idx" ON "charges" USING btree ("merchant_id","mode","api_key_id") WHERE "charges"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "verification_codes_target_idx" ON "verification_codes" USING btree ("target","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "merchant_members_one_merchant_per_user_idx" ON "merchant_members" USING btree ("user_id");--> statement-breakpoint
-- Allowed origins decide what a publishable key may do: a change must reach every instance's credential cache (0019).
DROP TRIGGER "api_keys_credentials_changed" ON "api_keys";--> statement-breakpoint
CREATE TRIGGER "api_keys_credentials_changed" AFTER UPDATE ON "api_keys" FOR EACH ROW
  WHEN ((OLD.merchant_id, OLD.mode, OLD.kind, OLD.name, OLD.hash, OLD.revoked_at, OLD.allowed_origins, OLD.allowed_redirect_origins) IS DISTINCT FROM (NEW.merchant_id, NEW.mode, NEW.kind, NEW.name, NEW.hash, NEW.revoked_at, NEW.allowed_origins, NEW.allowed_redirect_origins))
  EXECUTE FUNCTION "notify_credentials_changed"();
