// The transport everywhere except Unity (.NET, Mono, Godot C#): System.Net.Http. Not compiled inside
// Unity, where UnityWebRequestTransport is the default (HttpClient has no sockets in WebGL builds).
#if !UNITY_2020_3_OR_NEWER
using System;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Threading;
using System.Threading.Tasks;

namespace Chargeport
{
    public sealed class HttpClientTransport : IChargeportTransport, IDisposable
    {
        private readonly HttpClient _http;
        private readonly bool _ownsHttp;

        /// <param name="http">Your HttpClient (not disposed here), or null for one of this transport's own.</param>
        public HttpClientTransport(HttpClient http = null)
        {
            _http = http ?? new HttpClient();
            _ownsHttp = http == null;
        }

        public async Task<ChargeportResponse> SendAsync(ChargeportRequest request, CancellationToken cancel)
        {
            using (var message = new HttpRequestMessage(new HttpMethod(request.Method), request.Url))
            {
                foreach (var header in request.Headers) message.Headers.TryAddWithoutValidation(header.Key, header.Value);
                if (request.Body != null)
                {
                    message.Content = new StringContent(request.Body);
                    message.Content.Headers.ContentType = new MediaTypeHeaderValue(request.ContentType) { CharSet = "utf-8" };
                }
                HttpResponseMessage response;
                try
                {
                    response = await _http.SendAsync(message, cancel);
                }
                catch (HttpRequestException e)
                {
                    throw new ChargeportException("network_error", e.Message, 0);
                }
                using (response)
                {
                    var body = response.Content == null ? "" : await response.Content.ReadAsStringAsync();
                    return new ChargeportResponse((int)response.StatusCode, body);
                }
            }
        }

        public Task DelayAsync(TimeSpan delay, CancellationToken cancel)
        {
            return Task.Delay(delay, cancel);
        }

        public void Dispose()
        {
            if (_ownsHttp) _http.Dispose();
        }
    }
}
#endif
