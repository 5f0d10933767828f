/**
 * Every status machine of the service, in one list (lib/state-machine.ts). test/state-tables.test.ts walks it
 * pair by pair, and fails when a `state.ts` defines a machine that is missing here.
 */
import { chargeMachine } from '@/lib/charges/state';
import { fulfilmentMachine } from '@/lib/contracts/state';
import { paymentRequestMachine } from '@/lib/oauth/state';
import { onrampOrderMachine } from '@/lib/onramp/orders/state';
import { paymentMachine } from '@/lib/payments/state';
import { refundClaimMachine, refundMachine } from '@/lib/refunds/state';
import { sandboxSessionMachine } from '@/lib/sandbox-provider/state';
import { observedTransferMachine } from '@/lib/scanner/state';
import type { StateMachine } from '@/lib/state-machine';
import { swapExecutionMachine } from '@/lib/swap/state';
import { transferMachine } from '@/lib/transactions/state';
import { webhookDeliveryMachine, webhookEndpointMachine } from '@/lib/webhooks/state';

export const STATE_MACHINES: readonly StateMachine<string>[] = [
  chargeMachine,
  paymentMachine,
  observedTransferMachine,
  transferMachine,
  swapExecutionMachine,
  onrampOrderMachine,
  webhookDeliveryMachine,
  webhookEndpointMachine,
  fulfilmentMachine,
  refundClaimMachine,
  refundMachine,
  sandboxSessionMachine,
  paymentRequestMachine,
];
