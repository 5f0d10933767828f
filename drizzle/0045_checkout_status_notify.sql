-- Custom SQL. The open checkouts hear their charge change (GET /api/checkout/{chargeId}/events): every
-- change of what the checkout shows notifies channel `checkout_status` with the charge id, whoever writes
-- it (watchers, expiry, cancel, settlement, payments in flight). NOTIFY is sent at commit, once per charge
-- and transaction (PostgreSQL folds equal payloads); nothing is sent for a rolled-back change.
CREATE FUNCTION "notify_checkout_status"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'charges' THEN
    PERFORM pg_notify('checkout_status', NEW.id);
  ELSE
    PERFORM pg_notify('checkout_status', NEW.charge_id);
  END IF;
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "charges_notify_checkout" AFTER UPDATE OF "status" ON "charges" FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION "notify_checkout_status"();--> statement-breakpoint
CREATE TRIGGER "payments_notify_checkout" AFTER INSERT OR UPDATE OF "status", "block_number", "amount_base_units" ON "payments" FOR EACH ROW
  EXECUTE FUNCTION "notify_checkout_status"();--> statement-breakpoint
-- Payments in flight (lib/charges/payment-in-flight.ts): pay from balance, swap, card.
CREATE TRIGGER "outbound_transfers_notify_checkout" AFTER INSERT OR UPDATE OF "status" ON "outbound_transfers" FOR EACH ROW
  WHEN (NEW.charge_id IS NOT NULL)
  EXECUTE FUNCTION "notify_checkout_status"();--> statement-breakpoint
CREATE TRIGGER "swap_executions_notify_checkout" AFTER INSERT OR UPDATE OF "status" ON "swap_executions" FOR EACH ROW
  WHEN (NEW.charge_id IS NOT NULL)
  EXECUTE FUNCTION "notify_checkout_status"();--> statement-breakpoint
CREATE TRIGGER "onramp_orders_notify_checkout" AFTER INSERT OR UPDATE OF "status", "delivery_tx_hash", "charge_transfer_id", "charge_payment_error" ON "onramp_orders" FOR EACH ROW
  WHEN (NEW.charge_id IS NOT NULL)
  EXECUTE FUNCTION "notify_checkout_status"();
