CREATE TABLE "onramp_access_tokens" (
	"provider_id" text PRIMARY KEY NOT NULL,
	"sealed_token" text NOT NULL,
	"master_key_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"previous_sealed_token" text,
	"previous_master_key_id" text,
	"previous_valid_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
