CREATE TYPE "public"."contract_kind" AS ENUM('erc1155', 'erc721', 'erc20', 'other');--> statement-breakpoint
CREATE TYPE "public"."fulfilment_status" AS ENUM('pending', 'submitted', 'succeeded', 'failed');--> statement-breakpoint
ALTER TYPE "public"."transfer_purpose" ADD VALUE 'fulfilment';--> statement-breakpoint
CREATE TABLE "fulfilment_rules" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"mode" "api_key_mode" NOT NULL,
	"contract_id" text NOT NULL,
	"function_signature" text NOT NULL,
	"function_abi" jsonb NOT NULL,
	"bindings" jsonb NOT NULL,
	"required_metadata_keys" text[] DEFAULT '{}'::text[] NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "fulfilments" (
	"id" text PRIMARY KEY NOT NULL,
	"charge_id" text NOT NULL,
	"rule_id" text NOT NULL,
	"merchant_id" text NOT NULL,
	"mode" "api_key_mode" NOT NULL,
	"status" "fulfilment_status" DEFAULT 'pending' NOT NULL,
	"transfer_id" text,
	"recipient" text,
	"args" jsonb,
	"attempts" integer DEFAULT 0 NOT NULL,
	"failure_reason" text,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "merchant_contracts" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"mode" "api_key_mode" NOT NULL,
	"chain" text NOT NULL,
	"address" text NOT NULL,
	"label" text,
	"kind" "contract_kind" NOT NULL,
	"name" text,
	"symbol" text,
	"decimals" integer,
	"interfaces" text[] DEFAULT '{}'::text[] NOT NULL,
	"functions" jsonb NOT NULL,
	"has_uploaded_abi" boolean DEFAULT false NOT NULL,
	"implementation_address" text,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "fulfilment_rules" ADD CONSTRAINT "fulfilment_rules_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fulfilment_rules" ADD CONSTRAINT "fulfilment_rules_contract_id_merchant_contracts_id_fk" FOREIGN KEY ("contract_id") REFERENCES "public"."merchant_contracts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fulfilments" ADD CONSTRAINT "fulfilments_charge_id_charges_id_fk" FOREIGN KEY ("charge_id") REFERENCES "public"."charges"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fulfilments" ADD CONSTRAINT "fulfilments_rule_id_fulfilment_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."fulfilment_rules"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fulfilments" ADD CONSTRAINT "fulfilments_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fulfilments" ADD CONSTRAINT "fulfilments_transfer_id_outbound_transfers_id_fk" FOREIGN KEY ("transfer_id") REFERENCES "public"."outbound_transfers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merchant_contracts" ADD CONSTRAINT "merchant_contracts_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "fulfilment_rules_merchant_idx" ON "fulfilment_rules" USING btree ("merchant_id","mode");--> statement-breakpoint
CREATE UNIQUE INDEX "fulfilments_charge_rule_idx" ON "fulfilments" USING btree ("charge_id","rule_id");--> statement-breakpoint
CREATE INDEX "fulfilments_due_idx" ON "fulfilments" USING btree ("next_attempt_at") WHERE "fulfilments"."status" = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "fulfilments_transfer_idx" ON "fulfilments" USING btree ("transfer_id");--> statement-breakpoint
CREATE UNIQUE INDEX "merchant_contracts_address_idx" ON "merchant_contracts" USING btree ("merchant_id","mode","chain","address");--> statement-breakpoint
-- Custom SQL. Fulfilments are armed by the database in the transaction that makes a charge succeed,
-- whoever writes it (the chain watcher, an admin): one row per enabled rule of the merchant's mode whose
-- contract is on the charge's chain and whose metadata keys the charge carries. (charge, rule) is unique,
-- so a charge is never fulfilled twice by one rule; the job (lib/contracts/start-fulfilments.ts) starts them.
CREATE FUNCTION "arm_fulfilments"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO fulfilments (id, charge_id, rule_id, merchant_id, mode)
  SELECT 'ful_' || substr(md5(NEW.id || ':' || r.id), 1, 22), NEW.id, r.id, r.merchant_id, r.mode
  FROM fulfilment_rules r
  JOIN merchant_contracts c ON c.id = r.contract_id
  WHERE r.merchant_id = NEW.merchant_id AND r.mode = NEW.mode AND r.enabled
    AND c.chain = NEW.chain AND NEW.metadata ?& r.required_metadata_keys
  ON CONFLICT (charge_id, rule_id) DO NOTHING;
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "charges_arm_fulfilments" AFTER UPDATE OF "status" ON "charges" FOR EACH ROW
  WHEN (NEW.status = 'succeeded' AND OLD.status IS DISTINCT FROM 'succeeded')
  EXECUTE FUNCTION "arm_fulfilments"();
