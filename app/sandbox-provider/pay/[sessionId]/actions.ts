'use server';
import { after } from 'next/server';
import type { CardFieldErrors } from '@/lib/sandbox-provider/card';
import { isSandboxProviderEnabled } from '@/lib/sandbox-provider/config';
import { isSandboxApiError } from '@/lib/sandbox-provider/errors';
import { fulfilSession } from '@/lib/sandbox-provider/fulfil-session';
import { answerAuthentication, payWithCard, payWithoutCard, type PaymentResult } from '@/lib/sandbox-provider/pay-with-card';
import { failureMessage } from '@/lib/sandbox-provider/payment-screen';

export interface SandboxPayState {
  status: 'idle' | 'authentication_required' | 'paid' | 'failed' | 'invalid' | 'error';
  fieldErrors?: CardFieldErrors;
  message?: string;
}

/**
 * Every button of the Sandpiper Pay screen: `intent` is the method paid with, or `authenticate` for the
 * 3-D Secure challenge. Webhooks and the token delivery run after the answer (after()), so the screen
 * does not wait for the chain.
 */
export async function sandboxPayAction(_state: SandboxPayState, form: FormData): Promise<SandboxPayState> {
  if (!isSandboxProviderEnabled()) return { status: 'error', message: 'This payment page does not exist.' };
  const sessionId = String(form.get('sessionId') ?? '');
  const text = (name: string) => String(form.get(name) ?? '');
  try {
    let result: PaymentResult;
    const intent = text('intent');
    switch (intent) {
      case 'card':
        result = await payWithCard({
          sessionId,
          card: { number: text('number'), expiry: text('expiry'), cvc: text('cvc'), name: text('name') },
        });
        break;
      case 'bank_transfer':
      case 'apple_pay':
      case 'google_pay':
        result = await payWithoutCard({ sessionId, method: intent });
        break;
      case 'authenticate':
        result = await answerAuthentication({ sessionId, passed: text('outcome') === 'complete' });
        break;
      default:
        return { status: 'error', message: 'Choose a payment method.' };
    }
    switch (result.status) {
      case 'paid':
      case 'failed':
        after(() => fulfilSession(sessionId));
        return result.status === 'paid' ? { status: 'paid' } : { status: 'failed', message: failureMessage(result.reason) };
      case 'authentication_required':
        return { status: 'authentication_required' };
      case 'invalid':
        return { status: 'invalid', fieldErrors: result.fieldErrors };
    }
  } catch (error) {
    if (isSandboxApiError(error)) return { status: 'error', message: error.message };
    throw error;
  }
}
