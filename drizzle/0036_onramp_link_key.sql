ALTER TABLE "merchants" ADD COLUMN "onramp_link_key" text;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "onramp_link_key_created_at" timestamp with time zone;