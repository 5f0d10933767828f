ALTER TYPE "public"."incoming_transfer_status" ADD VALUE 'dropped';--> statement-breakpoint
CREATE TABLE "scanner_cursors" (
	"chain" text NOT NULL,
	"consumer" text NOT NULL,
	"last_block" bigint NOT NULL,
	"last_block_hash" text NOT NULL,
	"checkpoints" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"scanned_until" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "scanner_cursors_chain_consumer_pk" PRIMARY KEY("chain","consumer")
);
--> statement-breakpoint
-- The two watchers' cursors carry over: a deploy resumes where they stopped (the fork search starts from them).
INSERT INTO "scanner_cursors" ("chain", "consumer", "last_block", "last_block_hash", "checkpoints", "updated_at")
  SELECT "chain", 'charges', "last_block", "last_block_hash", jsonb_build_array(jsonb_build_object('n', "last_block"::text, 'h', "last_block_hash")), "updated_at"
  FROM "chain_cursors";--> statement-breakpoint
INSERT INTO "scanner_cursors" ("chain", "consumer", "last_block", "last_block_hash", "checkpoints", "updated_at")
  SELECT "chain", 'wallet-activity', "last_block", "last_block_hash", jsonb_build_array(jsonb_build_object('n', "last_block"::text, 'h', "last_block_hash")), "updated_at"
  FROM "wallet_transfer_cursors";--> statement-breakpoint
ALTER TABLE "chain_cursors" DISABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "wallet_transfer_cursors" DISABLE ROW LEVEL SECURITY;--> statement-breakpoint
DROP TABLE "chain_cursors" CASCADE;--> statement-breakpoint
DROP TABLE "wallet_transfer_cursors" CASCADE;--> statement-breakpoint
DROP INDEX "wallet_incoming_transfers_block_idx";--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "block_time" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "missing_since_block" bigint;--> statement-breakpoint
ALTER TABLE "wallet_incoming_transfers" ADD COLUMN "missing_since_block" bigint;--> statement-breakpoint
CREATE INDEX "wallet_incoming_transfers_pending_idx" ON "wallet_incoming_transfers" USING btree ("chain") WHERE "wallet_incoming_transfers"."status" = 'pending';