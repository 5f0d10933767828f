-- Idempotency keys are scoped by merchant, mode and key kind. Rows stored before this migration are
-- given the mode and kind of the key that created their charge; rows that name no charge (in flight,
-- or unknown) are dropped: they hold no response a retry could need.
ALTER TABLE "idempotency_keys" ADD COLUMN "mode" "api_key_mode";--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "key_kind" "api_key_kind";--> statement-breakpoint
UPDATE "idempotency_keys" AS i SET "mode" = k."mode", "key_kind" = k."kind"
  FROM "charges" AS c JOIN "api_keys" AS k ON k."id" = c."api_key_id"
  WHERE c."id" = i."response_body" #>> '{chargeId}' AND c."merchant_id" = i."merchant_id";--> statement-breakpoint
DELETE FROM "idempotency_keys" WHERE "mode" IS NULL OR "key_kind" IS NULL;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ALTER COLUMN "mode" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ALTER COLUMN "key_kind" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "idempotency_keys" DROP CONSTRAINT "idempotency_keys_merchant_id_key_pk";--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_merchant_id_mode_key_kind_key_pk" PRIMARY KEY("merchant_id","mode","key_kind","key");
