CREATE TABLE "step_up_refusals" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"merchant_id" text,
	"action" text NOT NULL,
	"reason" text NOT NULL,
	"ip" text,
	"user_agent" text,
	"notified" boolean NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "step_up_refusals" ADD CONSTRAINT "step_up_refusals_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "step_up_refusals" ADD CONSTRAINT "step_up_refusals_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "step_up_refusals_user_action_idx" ON "step_up_refusals" USING btree ("user_id","action","created_at" DESC NULLS LAST);