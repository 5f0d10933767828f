ALTER TABLE "swap_executions" DROP COLUMN "approve_nonce";--> statement-breakpoint
ALTER TABLE "swap_executions" DROP COLUMN "approve_tx_hash";--> statement-breakpoint
ALTER TABLE "swap_executions" DROP COLUMN "approve_raw_transaction";--> statement-breakpoint
ALTER TABLE "swap_executions" DROP COLUMN "swap_nonce";--> statement-breakpoint
ALTER TABLE "swap_executions" DROP COLUMN "swap_raw_transaction";