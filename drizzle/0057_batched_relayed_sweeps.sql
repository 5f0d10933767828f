DROP INDEX "outbound_transfer_attempts_tx_idx";--> statement-breakpoint
DROP INDEX "outbound_transfers_tx_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "outbound_transfer_attempts_tx_transfer_idx" ON "outbound_transfer_attempts" USING btree ("chain","tx_hash","transfer_id");--> statement-breakpoint
CREATE UNIQUE INDEX "outbound_transfers_tx_from_idx" ON "outbound_transfers" USING btree ("chain","tx_hash","from_address");