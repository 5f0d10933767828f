/**
 * The person's part of an authorization (the provider's "interactions"): sign in to Chargeport, then
 * consent to what the app asks. The page app/oauth/authorize/[uid] drives it; the verbs beside this
 * file (load-authorization-step, complete-login, approve-consent, deny-consent) read the interaction the
 * provider stored (bound to this browser by its signed interaction cookie) and store the outcome,
 * returning where the browser goes next (the provider's resume URL).
 */
import 'server-only';
import { ServerResponse } from 'node:http';
import { errors } from 'oidc-provider';
import { AppError } from '@/lib/errors';
import { nodeRequest } from './run-node-handler';
import { getProvider, interactionPath } from './provider';

type Interaction = Awaited<ReturnType<Awaited<ReturnType<typeof getProvider>>['interactionDetails']>>;

/** The interaction this browser is at; `not_found` when it expired or belongs to another browser. */
export async function interactionOf(
  uid: string,
  cookieHeader: string,
): Promise<{ interaction: Interaction; provider: Awaited<ReturnType<typeof getProvider>> }> {
  const provider = await getProvider();
  const headers = new Headers({ cookie: cookieHeader });
  const req = nodeRequest({ method: 'GET', url: interactionPath(uid), headers });
  try {
    const interaction = await provider.interactionDetails(req, new ServerResponse(req));
    if (interaction.uid !== uid) throw new errors.SessionNotFound('interaction mismatch');
    return { interaction, provider };
  } catch (error) {
    if (error instanceof errors.SessionNotFound) {
      throw new AppError(
        'not_found',
        'This sign-in request has expired or was opened in another browser. Go back to the app and start again.',
      );
    }
    throw error;
  }
}
