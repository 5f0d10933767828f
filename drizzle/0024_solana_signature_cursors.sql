ALTER TABLE "deposit_addresses" ADD COLUMN "reference_cursor" text;--> statement-breakpoint
ALTER TABLE "deposit_addresses" ADD COLUMN "receive_cursor" text;