// How the SDK reaches Chargeport from the engine it runs in. The client builds requests and reads
// answers; a transport only moves them. Two ship with the package: HttpClientTransport (any .NET outside
// Unity) and UnityWebRequestTransport (inside Unity, WebGL included, where System.Net and threads are
// unavailable). Pass your own to ChargeportClient to log, proxy or test.
using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace Chargeport
{
    /// <summary>Sends the SDK's HTTP requests and times its polls.</summary>
    public interface IChargeportTransport
    {
        /// <summary>Sends one request and returns the answer, whatever its status (4xx and 5xx included).
        /// Throws ChargeportException "network_error" when no answer arrived, OperationCanceledException when cancelled.</summary>
        Task<ChargeportResponse> SendAsync(ChargeportRequest request, CancellationToken cancel);

        /// <summary>Waits between polls (sign-in, payment). The transport owns time because Task.Delay needs a
        /// timer thread that Unity WebGL does not have.</summary>
        Task DelayAsync(TimeSpan delay, CancellationToken cancel);
    }

    public sealed class ChargeportRequest
    {
        public ChargeportRequest(string method, string url)
        {
            Method = method;
            Url = url;
            Headers = new Dictionary<string, string>();
        }

        /// <summary>GET or POST.</summary>
        public string Method { get; private set; }
        public string Url { get; private set; }
        /// <summary>Accept and, once signed in, Authorization (Bearer); never Content-Type (see ContentType).</summary>
        public IDictionary<string, string> Headers { get; private set; }
        /// <summary>UTF-8 text, or null for no body.</summary>
        public string Body { get; set; }
        /// <summary>The body's media type (application/json or application/x-www-form-urlencoded); null without a body.</summary>
        public string ContentType { get; set; }
    }

    public sealed class ChargeportResponse
    {
        public ChargeportResponse(int status, string body)
        {
            Status = status;
            Body = body ?? "";
        }

        /// <summary>The HTTP status code.</summary>
        public int Status { get; private set; }
        /// <summary>The body as UTF-8 text ("" when empty).</summary>
        public string Body { get; private set; }
    }
}
