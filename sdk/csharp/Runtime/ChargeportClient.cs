// Chargeport for games: "Sign in with Chargeport" by the device flow (RFC 8628), the player's user
// and balances, and in-game pay confirmed with the PIN on Chargeport (never typed in the game).
// Targets netstandard2.0 with no package dependency: Unity (WebGL included), Godot C#, any .NET. HTTP
// goes through an IChargeportTransport (Transport.cs). Charges are created on the merchant's server (the
// secret key never ships in a game).
// No ConfigureAwait(false) here, on purpose: continuations resume on the caller's context, which in Unity
// is the main thread, the only thread UnityWebRequest may be used from (and WebGL has no other).
using System;
using System.Collections.Generic;
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
        private readonly IChargeportTransport _transport;
        private readonly bool _ownsTransport;
        private readonly string _baseUrl;
        private readonly string _clientId;

        /// <param name="baseUrl">Chargeport's address, e.g. https://pay.example.com</param>
        /// <param name="clientId">The app's client id from the dashboard's OAuth tab (a public client).</param>
        /// <param name="transport">How requests travel; null for the platform's own: UnityWebRequest inside
        /// Unity, HttpClient elsewhere. A transport you pass is not disposed with the client.</param>
        public ChargeportClient(string baseUrl, string clientId, IChargeportTransport transport = null)
        {
            _baseUrl = baseUrl.TrimEnd('/');
            _clientId = clientId;
            _ownsTransport = transport == null;
#if UNITY_2020_3_OR_NEWER
            _transport = transport ?? new UnityWebRequestTransport();
#else
            _transport = transport ?? new HttpClientTransport();
#endif
        }

        /// <summary>The signed-in player's tokens; store RefreshToken (securely) to stay signed in.</summary>
        public Tokens Tokens { get; set; }

        /// <summary>Step 1 of sign-in: ask for a code to show the player.</summary>
        public async Task<DeviceSignIn> StartSignInAsync(string scope = "openid email wallet:read payments", CancellationToken cancel = default(CancellationToken))
        {
            var body = await FormAsync("/oidc/device/auth", new Dictionary<string, string> { { "client_id", _clientId }, { "scope", scope } }, cancel);
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
                await _transport.DelayAsync(TimeSpan.FromSeconds(interval), cancel);
                try
                {
                    return Tokens = ToTokens(await FormAsync("/oidc/token", new Dictionary<string, string>
                    {
                        { "grant_type", DeviceGrant }, { "device_code", signIn.DeviceCode }, { "client_id", _clientId },
                    }, cancel));
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
            }, cancel));
        }

        /// <summary>Signs in again from a refresh token saved after an earlier sign-in (it is rotated: save the new one).
        /// Throws ChargeportException "invalid_grant" when it no longer works (used, revoked or expired): sign in anew.</summary>
        public async Task<Tokens> ResumeSignInAsync(string refreshToken, CancellationToken cancel = default(CancellationToken))
        {
            Tokens = new Tokens { RefreshToken = refreshToken };
            try
            {
                return await RefreshAsync(cancel);
            }
            catch
            {
                Tokens = null; // not signed in: the next call asks for a sign-in rather than sending a dead token
                throw;
            }
        }

        /// <summary>Sign out: the refresh token (and with it the grant's tokens) stops working.</summary>
        public async Task SignOutAsync(CancellationToken cancel = default(CancellationToken))
        {
            if (Tokens == null) return;
            var token = Tokens.RefreshToken ?? Tokens.AccessToken;
            Tokens = null;
            await FormAsync("/oidc/token/revocation", new Dictionary<string, string> { { "token", token }, { "client_id", _clientId } }, cancel);
        }

        public async Task<ChargeportUser> GetUserAsync(CancellationToken cancel = default(CancellationToken))
        {
            var body = await SendAsync("GET", "/oidc/me", null, cancel);
            object verified;
            body.TryGetValue("email_verified", out verified);
            return new ChargeportUser { Id = Json.Str(body, "sub"), Email = Json.Str(body, "email"), EmailVerified = verified is bool && (bool)verified };
        }

        /// <summary>The player's addresses and token balances (scope wallet:read).</summary>
        public async Task<Balances> GetBalancesAsync(CancellationToken cancel = default(CancellationToken))
        {
            var data = Json.Obj(await SendAsync("GET", "/api/oauth/balances", null, cancel), "data");
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
            var body = await SendAsync("POST", "/api/oauth/payment-requests", "{\"chargeId\":" + Json.Quote(chargeId) + "}", cancel);
            return ToPaymentRequest(Json.Obj(body, "data"));
        }

        public async Task<PaymentRequest> GetPaymentRequestAsync(string requestId, CancellationToken cancel = default(CancellationToken))
        {
            var body = await SendAsync("GET", "/api/oauth/payment-requests/" + Uri.EscapeDataString(requestId), null, cancel);
            return ToPaymentRequest(Json.Obj(body, "data"));
        }

        /// <summary>Polls until the player confirmed (Status "confirmed": the payment is on its way), declined, or the request expired.</summary>
        public async Task<PaymentRequest> WaitForPaymentAsync(PaymentRequest request, CancellationToken cancel = default(CancellationToken))
        {
            while (true)
            {
                var current = await GetPaymentRequestAsync(request.Id, cancel);
                if (current.Status != "pending") return current;
                await _transport.DelayAsync(TimeSpan.FromSeconds(Math.Max(current.IntervalSeconds, 1)), cancel);
            }
        }

        /// <summary>A charge's status (pending, succeeded, expired…), as the hosted checkout sees it; no token needed.</summary>
        public async Task<string> GetChargeStatusAsync(string chargeId, CancellationToken cancel = default(CancellationToken))
        {
            var body = await SendAsync("GET", "/api/checkout/" + Uri.EscapeDataString(chargeId) + "/status", null, cancel, false);
            return Json.Str(Json.Obj(body, "data"), "status");
        }

        /// <summary>Polls a charge until its status is no longer "pending" (or the timeout passes) and returns it.</summary>
        public async Task<string> WaitForChargeAsync(string chargeId, TimeSpan timeout, CancellationToken cancel = default(CancellationToken))
        {
            var until = DateTime.UtcNow + timeout;
            while (true)
            {
                var status = await GetChargeStatusAsync(chargeId, cancel);
                if (status != "pending" || DateTime.UtcNow >= until) return status;
                await _transport.DelayAsync(TimeSpan.FromSeconds(2), cancel);
            }
        }

        public void Dispose()
        {
            var disposable = _transport as IDisposable;
            if (_ownsTransport && disposable != null) disposable.Dispose();
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

        private Task<Dictionary<string, object>> FormAsync(string path, Dictionary<string, string> form, CancellationToken cancel)
        {
            var body = new StringBuilder();
            foreach (var field in form)
            {
                if (body.Length > 0) body.Append('&');
                body.Append(Uri.EscapeDataString(field.Key)).Append('=').Append(Uri.EscapeDataString(field.Value ?? ""));
            }
            var request = new ChargeportRequest("POST", _baseUrl + path) { Body = body.ToString(), ContentType = "application/x-www-form-urlencoded" };
            return SendAsync(request, cancel);
        }

        private Task<Dictionary<string, object>> SendAsync(string method, string path, string json, CancellationToken cancel, bool withToken = true)
        {
            var request = new ChargeportRequest(method, _baseUrl + path);
            if (withToken)
            {
                if (Tokens == null || Tokens.AccessToken == null) throw new ChargeportException("not_signed_in", "Sign in first.", 0);
                request.Headers["Authorization"] = "Bearer " + Tokens.AccessToken;
            }
            if (json != null)
            {
                request.Body = json;
                request.ContentType = "application/json";
            }
            return SendAsync(request, cancel);
        }

        // OAuth endpoints answer { error, error_description }; the API { data, error: { code, message } }.
        private async Task<Dictionary<string, object>> SendAsync(ChargeportRequest request, CancellationToken cancel)
        {
            request.Headers["Accept"] = "application/json";
            var response = await _transport.SendAsync(request, cancel);
            var text = response.Body;
            var status = response.Status;
            Dictionary<string, object> body = null;
            if (text.Length > 0)
            {
                try { body = Json.Parse(text) as Dictionary<string, object>; }
                catch (FormatException) { body = null; }
            }
            if (status >= 200 && status < 300) return body ?? new Dictionary<string, object>();
            var apiError = Json.Obj(body, "error");
            if (apiError != null) throw new ChargeportException(Json.Str(apiError, "code"), Json.Str(apiError, "message"), status);
            var code = Json.Str(body, "error") ?? (status == 401 ? "invalid_access_token" : "http_" + status);
            throw new ChargeportException(code, Json.Str(body, "error_description") ?? "Chargeport answered " + status, status);
        }
    }
}
