// The transport inside Unity, WebGL included (compiled only there). WebGL has no System.Net (UnityWebRequest
// runs on the browser's Fetch API, under CORS: docs.unity3d.com/2020.3/Documentation/Manual/webgl-networking.html)
// and no C# threads, so Timer callbacks, Task.Delay and CancellationTokenSource timeouts never fire
// (docs.unity.cn/6000.5/Documentation/Manual/web-multithreading-intro.html). Hence: completion through
// UnityWebRequestAsyncOperation.completed (main thread), waits that yield frame by frame, no Task.Run.
// Call the client from the main thread (a MonoBehaviour), as UnityWebRequest requires.
#if UNITY_2020_3_OR_NEWER
using System;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using UnityEngine;
using UnityEngine.Networking;

namespace Chargeport
{
    public sealed class UnityWebRequestTransport : IChargeportTransport
    {
        public Task<ChargeportResponse> SendAsync(ChargeportRequest request, CancellationToken cancel)
        {
            cancel.ThrowIfCancellationRequested();
            var web = new UnityWebRequest(request.Url, request.Method) { downloadHandler = new DownloadHandlerBuffer() };
            if (request.Body != null)
            {
                web.uploadHandler = new UploadHandlerRaw(Encoding.UTF8.GetBytes(request.Body));
                web.SetRequestHeader("Content-Type", request.ContentType);
            }
            foreach (var header in request.Headers) web.SetRequestHeader(header.Key, header.Value);
            var answer = new TaskCompletionSource<ChargeportResponse>();
            // Cancelled from the main thread (a token that cancels on a timer never would, in WebGL).
            var abort = cancel.Register(web.Abort);
            web.SendWebRequest().completed += _ =>
            {
                abort.Dispose();
                if (cancel.IsCancellationRequested) answer.TrySetCanceled(cancel);
                else if (web.result == UnityWebRequest.Result.ConnectionError || web.result == UnityWebRequest.Result.DataProcessingError)
                    answer.TrySetException(new ChargeportException("network_error", web.error, 0));
                else answer.TrySetResult(new ChargeportResponse((int)web.responseCode, web.downloadHandler.text));
                web.Dispose();
            };
            return answer.Task;
        }

        // Task.Yield resumes on the next frame through Unity's SynchronizationContext: no timer, no thread.
        public async Task DelayAsync(TimeSpan delay, CancellationToken cancel)
        {
            var until = Time.realtimeSinceStartupAsDouble + delay.TotalSeconds;
            while (Time.realtimeSinceStartupAsDouble < until)
            {
                cancel.ThrowIfCancellationRequested();
                await Task.Yield();
            }
        }
    }
}
#endif
