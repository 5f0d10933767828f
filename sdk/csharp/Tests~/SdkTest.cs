// The SDK and the sample's logic against a running Chargeport (sdk/test/csharp-sdk.test.ts starts it and plays
// the player's part on Chargeport's side: entering the code, consenting, typing the PIN). Every request goes
// through a RecordingTransport wrapping HttpClientTransport, so the transport interface is what is exercised.
// Protocol on stdout: "SIGN-IN <code>", "PAY <code>" ask the other side to act; "OK" ends a passing run.
// Usage: mono SdkTest.exe <baseUrl> <clientId> <chargeId> <otherMerchantChargeId>
using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Chargeport;
using Chargeport.Samples;

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

    private static void Say(string line)
    {
        Console.WriteLine(line);
        Console.Out.Flush();
    }

    /// <summary>A custom transport: records each request (method, path, whether it carried a token, status) and each wait.</summary>
    private sealed class RecordingTransport : IChargeportTransport
    {
        private readonly IChargeportTransport _inner;
        public readonly List<string> Requests = new List<string>();
        public int Delays;

        public RecordingTransport(IChargeportTransport inner) { _inner = inner; }

        public async Task<ChargeportResponse> SendAsync(ChargeportRequest request, CancellationToken cancel)
        {
            var response = await _inner.SendAsync(request, cancel);
            var bearer = request.Headers.ContainsKey("Authorization") ? " bearer" : "";
            Requests.Add(request.Method + " " + new Uri(request.Url).AbsolutePath + bearer + " " + response.Status);
            return response;
        }

        public Task DelayAsync(TimeSpan delay, CancellationToken cancel)
        {
            Delays++;
            return _inner.DelayAsync(delay, cancel);
        }
    }

    private static async Task Run(string baseUrl, string clientId, string chargeId, string foreignChargeId)
    {
        using (var http = new HttpClientTransport())
        {
            var transport = new RecordingTransport(http);
            await SignInThenResume(baseUrl, clientId, chargeId, foreignChargeId, transport);
            foreach (var line in transport.Requests) Say("REQUEST " + line);
            Say("DELAYS " + transport.Delays);
        }
    }

    private static async Task SignInThenResume(string baseUrl, string clientId, string chargeId, string foreignChargeId, RecordingTransport transport)
    {
        string saved;
        using (var chargeport = new ChargeportClient(baseUrl, clientId, transport))
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

            // The sample's sign-in with a saved token that no longer works: it falls back to the device flow.
            saved = await new ChargeportShop(chargeport).SignInAsync("stale-refresh-token", signIn =>
            {
                Check(signIn.UserCode.Length == 9 && signIn.VerificationUri.EndsWith("/oidc/device"), "a device code and the verification address");
                Say("SIGN-IN " + signIn.UserCode);
            });
            Check(saved != null && chargeport.Tokens.AccessToken != null, "tokens");

            var user = await chargeport.GetUserAsync();
            Console.WriteLine("USER " + user.Id + " " + user.Email + " " + user.EmailVerified);

            var refreshed = await chargeport.RefreshAsync();
            Check(refreshed.RefreshToken != null && refreshed.RefreshToken != saved, "a rotated refresh token");
            saved = refreshed.RefreshToken;
        }

        // The game restarts: the sample resumes from the saved refresh token, without showing a code.
        using (var chargeport = new ChargeportClient(baseUrl, clientId, transport))
        {
            var shop = new ChargeportShop(chargeport);
            var resumed = await shop.SignInAsync(saved, signIn => Check(false, "no device code when resuming"));
            Check(resumed != saved, "resuming to rotate the refresh token");
            Console.WriteLine("RESUMED " + (await chargeport.GetUserAsync()).Id);

            var balances = await chargeport.GetBalancesAsync();
            Console.WriteLine("ADDRESSES " + string.Join(",", balances.Addresses));
            foreach (var token in balances.Tokens)
                if (token.Chain == "POLYGON" && token.Symbol == "USDC") Console.WriteLine("USDC " + token.Amount + " " + token.BaseUnits);

            try
            {
                await shop.BuyAsync(foreignChargeId, request => Check(false, "no code for another merchant's charge"));
                Check(false, "another merchant's charge to be refused");
            }
            catch (ChargeportException e)
            {
                Console.WriteLine("FOREIGN " + e.Status + " " + e.Code);
            }

            Check(await chargeport.GetChargeStatusAsync(chargeId) == "pending", "the charge to be pending before paying");
            var paid = await shop.BuyAsync(chargeId, request =>
            {
                Check(request.Status == "pending" && request.VerificationUriComplete.Contains(request.UserCode), "a pending payment request");
                Say("PAY " + request.UserCode);
            });
            Console.WriteLine("PAID " + paid.Status + " " + paid.TxHash);
            Console.WriteLine("CHARGE " + await chargeport.WaitForChargeAsync(chargeId, TimeSpan.FromSeconds(1)));

            await chargeport.SignOutAsync();
            try
            {
                await chargeport.ResumeSignInAsync(resumed);
                Check(false, "the signed-out refresh token to be refused");
            }
            catch (ChargeportException e)
            {
                Console.WriteLine("AFTER-SIGN-OUT " + e.Code);
            }
        }
    }
}
