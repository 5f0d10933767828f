// Sign in with Chargeport and pay a charge, in a scene: add this component to any GameObject, set the fields,
// press Play. IMGUI keeps the sample free of UI packages. Works in WebGL builds (see the package README).
using System;
using UnityEngine;

namespace Chargeport.Samples
{
    public sealed class ChargeportShopSample : MonoBehaviour
    {
        [Tooltip("Chargeport's address, e.g. https://pay.example.com")]
        [SerializeField] private string baseUrl = "https://pay.example.com";
        [Tooltip("Your public OAuth app's client id (dashboard → Settings → OAuth)")]
        [SerializeField] private string clientId = "cpapp_…";
        [Tooltip("A charge id from your game server (POST /api/createCharge with the secret key)")]
        [SerializeField] private string chargeId = "";

        private const string RefreshTokenKey = "chargeport.refresh";
        private ChargeportClient _client;
        private ChargeportShop _shop;
        private string _status = "Not signed in";
        private bool _busy;

        private void Awake()
        {
            _client = new ChargeportClient(baseUrl, clientId);
            _shop = new ChargeportShop(_client);
        }

        private void OnDestroy()
        {
            _client.Dispose();
        }

        private void OnGUI()
        {
            GUILayout.Label(_status);
            GUI.enabled = !_busy;
            if (GUILayout.Button("Sign in with Chargeport")) SignIn();
            if (GUILayout.Button("Buy")) Buy();
            GUI.enabled = true;
        }

        // async void: Unity's entry points cannot await; every exception is caught and shown.
        private async void SignIn()
        {
            _busy = true;
            try
            {
                // PlayerPrefs is plain storage (IndexedDB on WebGL): use your platform's secure store in a real game.
                var refresh = await _shop.SignInAsync(PlayerPrefs.GetString(RefreshTokenKey, ""),
                    code => _status = "Go to " + code.VerificationUri + " and enter " + code.UserCode);
                PlayerPrefs.SetString(RefreshTokenKey, refresh);
                var user = await _client.GetUserAsync();
                var balances = await _client.GetBalancesAsync();
                _status = "Signed in as " + user.Email + ", " + balances.TotalUsd + " USD";
            }
            catch (Exception e)
            {
                _status = "Sign-in failed: " + e.Message;
            }
            finally
            {
                _busy = false;
            }
        }

        private async void Buy()
        {
            _busy = true;
            try
            {
                var outcome = await _shop.BuyAsync(chargeId,
                    code => _status = "Confirm with your PIN at " + code.VerificationUri + ", code " + code.UserCode);
                _status = outcome.Status == "confirmed"
                    ? "Paid: " + await _client.WaitForChargeAsync(chargeId, TimeSpan.FromMinutes(2))
                    : "Payment " + outcome.Status;
            }
            catch (Exception e)
            {
                _status = "Payment failed: " + e.Message;
            }
            finally
            {
                _busy = false;
            }
        }
    }
}
