// Chargeport for games: "Sign in with Chargeport" by the device flow (RFC 8628), the player's user
// and balances, and in-game pay confirmed with the PIN on Chargeport (never typed in the game).
// Targets netstandard2.0 with no engine or package dependency: Unity, Godot C#, any .NET.
// Charges are created on the merchant's server (the secret key never ships in a game).
using System;
using System.Collections.Generic;
using System.Net;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace Chargeport
{
    /// <summary>An error answered by Chargeport: a stable code (e.g. "access_denied", "not_found") and a message.</summary>
    public sealed class ChargeportException : Exception
    {
        public ChargeportException(string code, string message, int status) : base(message)
        {
            Code = code;
            Status = status;
        }

        public string Code { get; private set; }
        public int Status { get; private set; }
    }

    /// <summary>What the game shows while the player signs in on another screen.</summary>
    public sealed class DeviceSignIn
    {
        public string DeviceCode { get; internal set; }
        /// <summary>Show this code…</summary>
        public string UserCode { get; internal set; }
        /// <summary>…and this address (or a QR code of VerificationUriComplete).</summary>
        public string VerificationUri { get; internal set; }
        public string VerificationUriComplete { get; internal set; }
        public int IntervalSeconds { get; internal set; }
        public DateTime ExpiresAt { get; internal set; }
    }

    public sealed class Tokens
    {
        public string AccessToken { get; internal set; }
        public string RefreshToken { get; internal set; }
        public string Scope { get; internal set; }
        public DateTime ExpiresAt { get; internal set; }
    }

    public sealed class ChargeportUser
    {
        /// <summary>The account id for this app (the OpenID "sub").</summary>
        public string Id { get; internal set; }
        /// <summary>Set with the "email" scope.</summary>
        public string Email { get; internal set; }
        public bool EmailVerified { get; internal set; }
    }

    public sealed class TokenBalance
    {
        public string Chain { get; internal set; }
        public string Symbol { get; internal set; }
        public string TokenAddress { get; internal set; }
        /// <summary>Exact decimal text (e.g. "12.5"); null when the chain could not be read.</summary>
        public string Amount { get; internal set; }
        /// <summary>Base units as decimal text (money is never a float).</summary>
        public string BaseUnits { get; internal set; }
        public string Usd { get; internal set; }
    }

    public sealed class Balances
    {
        public IList<string> Addresses { get; internal set; }
        public IList<TokenBalance> Tokens { get; internal set; }
        public string TotalUsd { get; internal set; }
    }

    /// <summary>A payment the player confirms on Chargeport with the PIN.</summary>
    public sealed class PaymentRequest
    {
        public string Id { get; internal set; }
        public string ChargeId { get; internal set; }
        /// <summary>pending, confirmed, declined or expired.</summary>
        public string Status { get; internal set; }
        /// <summary>The charge's own status: succeeded once the payment is confirmed on chain.</summary>
        public string ChargeStatus { get; internal set; }
        /// <summary>Show this code with VerificationUri: the player types it and the PIN on Chargeport.</summary>
        public string UserCode { get; internal set; }
        public string VerificationUri { get; internal set; }
        public string VerificationUriComplete { get; internal set; }
        public int IntervalSeconds { get; internal set; }
        public string TxHash { get; internal set; }
    }

    public sealed class ChargeportClient : IDisposable
    {
        private const string DeviceGrant = "urn:ietf:params:oauth:grant-type:device_code";
        private readonly HttpClient _http;
        private readonly string _baseUrl;
        private readonly string _clientId;

        /// <param name="baseUrl">Chargeport's address, e.g. https://pay.example.com</param>
        /// <param name="clientId">The app's client id from the dashboard's OAuth tab (a public client).</param>
        public ChargeportClient(string baseUrl, string clientId, HttpClient http = null)
        {
            _baseUrl = baseUrl.TrimEnd('/');
            _clientId = clientId;
            _http = http ?? new HttpClient();
        }

        /// <summary>The signed-in player's tokens; store RefreshToken (securely) to stay signed in.</summary>
        public Tokens Tokens { get; set; }

        /// <summary>Step 1 of sign-in: ask for a code to show the player.</summary>
        public async Task<DeviceSignIn> StartSignInAsync(string scope = "openid email wallet:read payments", CancellationToken cancel = default(CancellationToken))
        {
            var body = await FormAsync("/oidc/device/auth", new Dictionary<string, string> { { "client_id", _clientId }, { "scope", scope } }, cancel).ConfigureAwait(false);
            return new DeviceSignIn
            {
                DeviceCode = Json.Str(body, "device_code"),
                UserCode = Json.Str(body, "user_code"),
                VerificationUri = Json.Str(body, "verification_uri"),
                VerificationUriComplete = Json.Str(body, "verification_uri_complete"),
                IntervalSeconds = Json.Int(body, "interval", 5),
                ExpiresAt = DateTime.UtcNow.AddSeconds(Json.Int(body, "expires_in", 600)),
            };
        }

        /// <summary>Step 2: wait until the player allowed the app on Chargeport. Throws ChargeportException
        /// "access_denied" when they refused, "expired_token" when the code expired.</summary>
        public async Task<Tokens> CompleteSignInAsync(DeviceSignIn signIn, CancellationToken cancel = default(CancellationToken))
        {
            var interval = Math.Max(signIn.IntervalSeconds, 1);
            while (true)
            {
                await Task.Delay(TimeSpan.FromSeconds(interval), cancel).ConfigureAwait(false);
                try
                {
                    return Tokens = ToTokens(await FormAsync("/oidc/token", new Dictionary<string, string>
                    {
                        { "grant_type", DeviceGrant }, { "device_code", signIn.DeviceCode }, { "client_id", _clientId },
                    }, cancel).ConfigureAwait(false));
                }
                catch (ChargeportException e)
                {
                    if (e.Code == "authorization_pending") continue;
                    if (e.Code == "slow_down") { interval += 5; continue; }
                    throw;
                }
            }
        }

        /// <summary>New tokens from the refresh token (which is rotated: keep the new one).</summary>
        public async Task<Tokens> RefreshAsync(CancellationToken cancel = default(CancellationToken))
        {
            if (Tokens == null || Tokens.RefreshToken == null) throw new ChargeportException("not_signed_in", "Sign in first.", 0);
            return Tokens = ToTokens(await FormAsync("/oidc/token", new Dictionary<string, string>
            {
                { "grant_type", "refresh_token" }, { "refresh_token", Tokens.RefreshToken }, { "client_id", _clientId },
            }, cancel).ConfigureAwait(false));
        }

        /// <summary>Sign out: the refresh token (and with it the grant's tokens) stops working.</summary>
        public async Task SignOutAsync(CancellationToken cancel = default(CancellationToken))
        {
            if (Tokens == null) return;
            var token = Tokens.RefreshToken ?? Tokens.AccessToken;
            Tokens = null;
            await FormAsync("/oidc/token/revocation", new Dictionary<string, string> { { "token", token }, { "client_id", _clientId } }, cancel).ConfigureAwait(false);
        }

        public async Task<ChargeportUser> GetUserAsync(CancellationToken cancel = default(CancellationToken))
        {
            var body = await SendAsync(HttpMethod.Get, "/oidc/me", null, cancel).ConfigureAwait(false);
            object verified;
            body.TryGetValue("email_verified", out verified);
            return new ChargeportUser { Id = Json.Str(body, "sub"), Email = Json.Str(body, "email"), EmailVerified = verified is bool && (bool)verified };
        }

        /// <summary>The player's addresses and token balances (scope wallet:read).</summary>
        public async Task<Balances> GetBalancesAsync(CancellationToken cancel = default(CancellationToken))
        {
            var data = Json.Obj(await SendAsync(HttpMethod.Get, "/api/oauth/balances", null, cancel).ConfigureAwait(false), "data");
            var result = new Balances { Addresses = new List<string>(), Tokens = new List<TokenBalance>(), TotalUsd = Json.Str(data, "totalUsd") };
            foreach (Dictionary<string, object> wallet in Json.Arr(data, "wallets"))
            {
                result.Addresses.Add(Json.Str(wallet, "address"));
                foreach (Dictionary<string, object> chain in Json.Arr(wallet, "chains"))
                    foreach (Dictionary<string, object> token in Json.Arr(chain, "tokens"))
                        result.Tokens.Add(new TokenBalance
                        {
                            Chain = Json.Str(chain, "chain"),
                            Symbol = Json.Str(token, "symbol"),
                            TokenAddress = Json.Str(token, "tokenAddress"),
                            Amount = Json.Str(token, "amount"),
                            BaseUnits = Json.Str(token, "baseUnits"),
                            Usd = Json.Str(token, "usd"),
                        });
            }
            return result;
        }

        /// <summary>Ask the player to pay one of this merchant's charges (scope payments). Show the returned
        /// UserCode and VerificationUri; the player confirms with the PIN on Chargeport. Then WaitForPaymentAsync.</summary>
        public async Task<PaymentRequest> PayAsync(string chargeId, CancellationToken cancel = default(CancellationToken))
        {
            var body = await SendAsync(HttpMethod.Post, "/api/oauth/payment-requests", "{\"chargeId\":" + Json.Quote(chargeId) + "}", cancel).ConfigureAwait(false);
            return ToPaymentRequest(Json.Obj(body, "data"));
        }

        public async Task<PaymentRequest> GetPaymentRequestAsync(string requestId, CancellationToken cancel = default(CancellationToken))
        {
            var body = await SendAsync(HttpMethod.Get, "/api/oauth/payment-requests/" + Uri.EscapeDataString(requestId), null, cancel).ConfigureAwait(false);
            return ToPaymentRequest(Json.Obj(body, "data"));
        }

        /// <summary>Polls until the player confirmed (Status "confirmed": the payment is on its way), declined, or the request expired.</summary>
        public async Task<PaymentRequest> WaitForPaymentAsync(PaymentRequest request, CancellationToken cancel = default(CancellationToken))
        {
            while (true)
            {
                var current = await GetPaymentRequestAsync(request.Id, cancel).ConfigureAwait(false);
                if (current.Status != "pending") return current;
                await Task.Delay(TimeSpan.FromSeconds(Math.Max(current.IntervalSeconds, 1)), cancel).ConfigureAwait(false);
            }
        }

        /// <summary>A charge's status (pending, succeeded, expired…), as the hosted checkout sees it; no token needed.</summary>
        public async Task<string> GetChargeStatusAsync(string chargeId, CancellationToken cancel = default(CancellationToken))
        {
            var body = await SendAsync(HttpMethod.Get, "/api/checkout/" + Uri.EscapeDataString(chargeId) + "/status", null, cancel, false).ConfigureAwait(false);
            return Json.Str(Json.Obj(body, "data"), "status");
        }

        /// <summary>Polls a charge until its status is no longer "pending" (or the timeout passes) and returns it.</summary>
        public async Task<string> WaitForChargeAsync(string chargeId, TimeSpan timeout, CancellationToken cancel = default(CancellationToken))
        {
            var until = DateTime.UtcNow + timeout;
            while (true)
            {
                var status = await GetChargeStatusAsync(chargeId, cancel).ConfigureAwait(false);
                if (status != "pending" || DateTime.UtcNow >= until) return status;
                await Task.Delay(TimeSpan.FromSeconds(2), cancel).ConfigureAwait(false);
            }
        }

        public void Dispose()
        {
            _http.Dispose();
        }

        private static Tokens ToTokens(Dictionary<string, object> body)
        {
            return new Tokens
            {
                AccessToken = Json.Str(body, "access_token"),
                RefreshToken = Json.Str(body, "refresh_token"),
                Scope = Json.Str(body, "scope"),
                ExpiresAt = DateTime.UtcNow.AddSeconds(Json.Int(body, "expires_in", 0)),
            };
        }

        private static PaymentRequest ToPaymentRequest(Dictionary<string, object> data)
        {
            return new PaymentRequest
            {
                Id = Json.Str(data, "id"),
                ChargeId = Json.Str(data, "chargeId"),
                Status = Json.Str(data, "status"),
                ChargeStatus = Json.Str(data, "chargeStatus"),
                UserCode = Json.Str(data, "userCode"),
                VerificationUri = Json.Str(data, "verificationUri"),
                VerificationUriComplete = Json.Str(data, "verificationUriComplete"),
                IntervalSeconds = Json.Int(data, "interval", 2),
                TxHash = Json.Str(data, "txHash"),
            };
        }

        private async Task<Dictionary<string, object>> FormAsync(string path, Dictionary<string, string> form, CancellationToken cancel)
        {
            using (var message = new HttpRequestMessage(HttpMethod.Post, _baseUrl + path) { Content = new FormUrlEncodedContent(form) })
                return await ReadAsync(await _http.SendAsync(message, cancel).ConfigureAwait(false)).ConfigureAwait(false);
        }

        private async Task<Dictionary<string, object>> SendAsync(HttpMethod method, string path, string json, CancellationToken cancel, bool withToken = true)
        {
            using (var message = new HttpRequestMessage(method, _baseUrl + path))
            {
                if (withToken)
                {
                    if (Tokens == null) throw new ChargeportException("not_signed_in", "Sign in first.", 0);
                    message.Headers.Authorization = new AuthenticationHeaderValue("Bearer", Tokens.AccessToken);
                }
                if (json != null) message.Content = new StringContent(json, Encoding.UTF8, "application/json");
                return await ReadAsync(await _http.SendAsync(message, cancel).ConfigureAwait(false)).ConfigureAwait(false);
            }
        }

        // OAuth endpoints answer { error, error_description }; the API { data, error: { code, message } }.
        private static async Task<Dictionary<string, object>> ReadAsync(HttpResponseMessage response)
        {
            using (response)
            {
                var text = response.Content == null ? "" : await response.Content.ReadAsStringAsync().ConfigureAwait(false);
                var status = (int)response.StatusCode;
                Dictionary<string, object> body = null;
                if (text.Length > 0)
                {
                    try { body = Json.Parse(text) as Dictionary<string, object>; }
                    catch (FormatException) { body = null; }
                }
                if (response.IsSuccessStatusCode) return body ?? new Dictionary<string, object>();
                var apiError = Json.Obj(body, "error");
                if (apiError != null) throw new ChargeportException(Json.Str(apiError, "code"), Json.Str(apiError, "message"), status);
                var code = Json.Str(body, "error") ?? (status == (int)HttpStatusCode.Unauthorized ? "invalid_access_token" : "http_" + status);
                throw new ChargeportException(code, Json.Str(body, "error_description") ?? "Chargeport answered " + status, status);
            }
        }
    }
}
