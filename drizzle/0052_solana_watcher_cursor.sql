ALTER TABLE "deposit_addresses" ADD COLUMN "searched_slot" bigint;--> statement-breakpoint
ALTER TABLE "deposit_addresses" ADD COLUMN "searched_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "deposit_addresses" ADD COLUMN "searched_at" timestamp with time zone;