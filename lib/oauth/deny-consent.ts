import 'server-only';
import { interactionOf } from './interaction-of';

/** The user said no: the app gets `access_denied`. */
export async function denyConsent(input: { uid: string; cookieHeader: string }): Promise<string> {
  const { interaction } = await interactionOf(input.uid, input.cookieHeader);
  interaction.result = { error: 'access_denied', error_description: 'The user did not allow access.' };
  await interaction.save(interaction.exp - Math.floor(Date.now() / 1000));
  return interaction.returnTo;
}
