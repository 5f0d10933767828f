ALTER TABLE "charges" ADD COLUMN "needs_review_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "outbound_transfers" ADD COLUMN "reopened_at" timestamp with time zone;