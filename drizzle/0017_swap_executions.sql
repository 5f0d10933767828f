CREATE TYPE "public"."swap_branch" AS ENUM('held_funds', 'onramp_conversion');--> statement-breakpoint
CREATE TYPE "public"."swap_execution_status" AS ENUM('signed', 'broadcast', 'confirmed', 'failed');--> statement-breakpoint
CREATE TABLE "swap_executions" (
	"id" text PRIMARY KEY NOT NULL,
	"charge_id" text NOT NULL,
	"branch" "swap_branch" NOT NULL,
	"user_id" text,
	"chain" text NOT NULL,
	"router" text NOT NULL,
	"from_address" text NOT NULL,
	"recipient" text NOT NULL,
	"token_in" text NOT NULL,
	"token_out" text NOT NULL,
	"amount_out" numeric(78, 0) NOT NULL,
	"quoted_amount_in" numeric(78, 0) NOT NULL,
	"amount_in_max" numeric(78, 0) NOT NULL,
	"amount_in" numeric(78, 0),
	"slippage_bps" integer NOT NULL,
	"deadline" timestamp with time zone NOT NULL,
	"approve_nonce" integer,
	"approve_tx_hash" text,
	"approve_raw_transaction" text,
	"swap_nonce" integer,
	"swap_tx_hash" text,
	"swap_raw_transaction" text,
	"status" "swap_execution_status" DEFAULT 'signed' NOT NULL,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "swap_executions" ADD CONSTRAINT "swap_executions_charge_id_charges_id_fk" FOREIGN KEY ("charge_id") REFERENCES "public"."charges"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "swap_executions" ADD CONSTRAINT "swap_executions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "swap_executions_one_live_idx" ON "swap_executions" USING btree ("charge_id") WHERE "swap_executions"."status" <> 'failed';--> statement-breakpoint
CREATE INDEX "swap_executions_charge_idx" ON "swap_executions" USING btree ("charge_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "swap_executions_open_idx" ON "swap_executions" USING btree ("status") WHERE "swap_executions"."status" in ('signed', 'broadcast');--> statement-breakpoint
CREATE INDEX "swap_executions_from_idx" ON "swap_executions" USING btree ("chain","from_address");