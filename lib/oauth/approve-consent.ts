import 'server-only';
import { AppError } from '@/lib/errors';
import { interactionOf } from './interaction-of';

/** The user allowed the app what it asked: the grant (one per account and app) gains those scopes. */
export async function approveConsent(input: { uid: string; cookieHeader: string; userId: string }): Promise<string> {
  const { interaction, provider } = await interactionOf(input.uid, input.cookieHeader);
  if (interaction.prompt.name !== 'consent') throw new AppError('invalid_request', 'Nothing to consent to at this step.');
  if (interaction.session?.accountId !== input.userId) {
    throw new AppError(
      'forbidden',
      'You are signed in as another account than the one this request was started with. Start again from the app.',
    );
  }
  const clientId = String(interaction.params.client_id);
  const grant = interaction.grantId
    ? ((await provider.Grant.find(interaction.grantId)) ?? new provider.Grant({ accountId: input.userId, clientId }))
    : new provider.Grant({ accountId: input.userId, clientId });
  const details = interaction.prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(' '));
  if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(details.missingResourceScopes ?? {}))
    grant.addResourceScope(indicator, scopes.join(' '));
  const grantId = await grant.save();
  interaction.result = { ...interaction.lastSubmission, consent: { grantId } };
  await interaction.save(interaction.exp - Math.floor(Date.now() / 1000));
  return interaction.returnTo;
}
