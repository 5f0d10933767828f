// The sample's logic, without UnityEngine, so it also runs outside Unity: sdk/csharp/Tests~/SdkTest.cs drives
// it against a running Chargeport (sdk/test/csharp-sdk.test.ts). ChargeportShopSample.cs wires it to a scene.
using System;
using System.Threading;
using System.Threading.Tasks;

namespace Chargeport.Samples
{
    public sealed class ChargeportShop
    {
        private readonly ChargeportClient _chargeport;

        public ChargeportShop(ChargeportClient chargeport)
        {
            _chargeport = chargeport;
        }

        /// <summary>Signs the player in: from the refresh token saved last time when it still works, otherwise by
        /// the device flow (showCode displays the code and address; the player allows the game on their phone or PC).
        /// Returns the refresh token to save (it changes at every sign-in and refresh).</summary>
        public async Task<string> SignInAsync(string savedRefreshToken, Action<DeviceSignIn> showCode, CancellationToken cancel = default(CancellationToken))
        {
            if (!string.IsNullOrEmpty(savedRefreshToken))
            {
                try
                {
                    return (await _chargeport.ResumeSignInAsync(savedRefreshToken, cancel)).RefreshToken;
                }
                catch (ChargeportException e)
                {
                    if (e.Code != "invalid_grant") throw; // used, revoked or expired: sign in anew
                }
            }
            var signIn = await _chargeport.StartSignInAsync("openid email wallet:read payments", cancel);
            showCode(signIn);
            return (await _chargeport.CompleteSignInAsync(signIn, cancel)).RefreshToken;
        }

        /// <summary>Pays a charge your game server created (POST /api/createCharge with the secret key, which never
        /// ships in the game): showCode displays the code; the player confirms with the PIN on Chargeport.
        /// Returns the request once its Status is "confirmed", "declined" or "expired". Deliver when YOUR SERVER
        /// sees charge.succeeded, not on the game's word.</summary>
        public async Task<PaymentRequest> BuyAsync(string chargeId, Action<PaymentRequest> showCode, CancellationToken cancel = default(CancellationToken))
        {
            var request = await _chargeport.PayAsync(chargeId, cancel);
            showCode(request);
            return await _chargeport.WaitForPaymentAsync(request, cancel);
        }
    }
}
