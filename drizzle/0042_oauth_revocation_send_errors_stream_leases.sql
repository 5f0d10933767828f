CREATE TABLE "event_stream_leases" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"api_key_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "outbound_transfers" ADD COLUMN "transport_failures" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "outbound_transfers" ADD COLUMN "transport_failing_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "event_stream_leases" ADD CONSTRAINT "event_stream_leases_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "event_stream_leases_merchant_idx" ON "event_stream_leases" USING btree ("merchant_id","expires_at");--> statement-breakpoint
CREATE INDEX "oidc_payloads_account_idx" ON "oidc_payloads" USING btree ("account_id");--> statement-breakpoint
-- N14: whatever ends every session of an account (users.session_version bumped: sign out everywhere,
-- PIN change or reset, e-mail or phone change, a new second factor, removal from a merchant) also ends
-- what apps hold through "Sign in with Chargeport": grants, access and refresh tokens, codes, device
-- codes and the provider's own sessions. Every writer (verbs, admin CLI, psql) does, because the
-- database does, in the same statement as the bump.
CREATE FUNCTION "revoke_oauth_of_account"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "oidc_payloads"
  WHERE "account_id" = NEW."id"
     OR "grant_id" IN (SELECT "id" FROM "oidc_payloads" WHERE "model" = 'Grant' AND "account_id" = NEW."id");
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "users_session_end_revokes_oauth" AFTER UPDATE OF "session_version" ON "users" FOR EACH ROW
  WHEN (NEW."session_version" IS DISTINCT FROM OLD."session_version")
  EXECUTE FUNCTION "revoke_oauth_of_account"();
