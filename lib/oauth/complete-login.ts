import 'server-only';
import { interactionOf } from './interaction-of';

/** The signed-in Chargeport user is the account of this authorization. */
export async function completeLogin(input: { uid: string; cookieHeader: string; userId: string }): Promise<string> {
  const { interaction } = await interactionOf(input.uid, input.cookieHeader);
  interaction.result = { ...interaction.lastSubmission, login: { accountId: input.userId } };
  await interaction.save(interaction.exp - Math.floor(Date.now() / 1000));
  return interaction.returnTo;
}
