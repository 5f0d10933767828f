// The SDK against a running Chargeport (sdk/test/csharp-sdk.test.ts starts it and plays the player's
// part on Chargeport's side: entering the code, consenting, typing the PIN). Protocol on stdout:
// "SIGN-IN <code>", "PAY <code>" ask the other side to act; "OK" ends a passing run.
// Usage: mono SdkTest.exe <baseUrl> <clientId> <chargeId> <otherMerchantChargeId>
using System;
using System.Threading.Tasks;
using Chargeport;

internal static class SdkTest
{
    private static int Main(string[] args)
    {
        try
        {
            Run(args[0], args[1], args[2], args[3]).GetAwaiter().GetResult();
            Console.WriteLine("OK");
            return 0;
        }
        catch (Exception e)
        {
            Console.WriteLine("FAIL " + e.GetType().Name + ": " + e.Message.Replace('\n', ' '));
            return 1;
        }
    }

    private static void Check(bool condition, string what)
    {
        if (!condition) throw new Exception("expected " + what);
    }

    private static async Task Run(string baseUrl, string clientId, string chargeId, string foreignChargeId)
    {
        using (var chargeport = new ChargeportClient(baseUrl, clientId))
        {
            try
            {
                await chargeport.GetUserAsync();
                Check(false, "GetUserAsync to need a sign-in");
            }
            catch (ChargeportException e)
            {
                Check(e.Code == "not_signed_in", "not_signed_in, got " + e.Code);
            }

            var signIn = await chargeport.StartSignInAsync();
            Check(signIn.UserCode.Length == 9 && signIn.VerificationUri.EndsWith("/oidc/device"), "a device code and the verification address");
            Console.WriteLine("SIGN-IN " + signIn.UserCode);
            Console.Out.Flush();
            var tokens = await chargeport.CompleteSignInAsync(signIn);
            Check(tokens.AccessToken != null && tokens.RefreshToken != null, "tokens");

            var user = await chargeport.GetUserAsync();
            Console.WriteLine("USER " + user.Id + " " + user.Email + " " + user.EmailVerified);

            var oldRefresh = tokens.RefreshToken;
            var refreshed = await chargeport.RefreshAsync();
            Check(refreshed.RefreshToken != null && refreshed.RefreshToken != oldRefresh, "a rotated refresh token");

            var balances = await chargeport.GetBalancesAsync();
            Console.WriteLine("ADDRESSES " + string.Join(",", balances.Addresses));
            foreach (var token in balances.Tokens)
                if (token.Chain == "POLYGON" && token.Symbol == "USDC") Console.WriteLine("USDC " + token.Amount + " " + token.BaseUnits);

            try
            {
                await chargeport.PayAsync(foreignChargeId);
                Check(false, "another merchant's charge to be refused");
            }
            catch (ChargeportException e)
            {
                Console.WriteLine("FOREIGN " + e.Status + " " + e.Code);
            }

            Check(await chargeport.GetChargeStatusAsync(chargeId) == "pending", "the charge to be pending before paying");
            var request = await chargeport.PayAsync(chargeId);
            Check(request.Status == "pending" && request.VerificationUriComplete.Contains(request.UserCode), "a pending payment request");
            Console.WriteLine("PAY " + request.UserCode);
            Console.Out.Flush();
            var paid = await chargeport.WaitForPaymentAsync(request);
            Console.WriteLine("PAID " + paid.Status + " " + paid.TxHash);
            Console.WriteLine("CHARGE " + await chargeport.WaitForChargeAsync(chargeId, TimeSpan.FromSeconds(1)));

            await chargeport.SignOutAsync();
        }
    }
}
