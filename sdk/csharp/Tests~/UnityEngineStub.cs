// NOT Unity: the few UnityEngine types that Runtime/UnityWebRequestTransport.cs and the sample's
// ChargeportShopSample.cs use, with Unity's signatures, so that `mcs -define:UNITY_2020_3_OR_NEWER` can
// typecheck those files without a Unity editor (sdk/test/csharp-sdk.test.ts). Compiled as a library, never
// run: every member throws. A typecheck against this stub says nothing about behaviour inside Unity.
using System;

namespace UnityEngine
{
    public class Object { }
    public class Component : Object { }
    public class Behaviour : Component { }
    public class MonoBehaviour : Behaviour { }

    public class AsyncOperation
    {
        public event Action<AsyncOperation> completed { add { throw new NotImplementedException(); } remove { } }
    }

    public static class Time
    {
        public static double realtimeSinceStartupAsDouble { get { throw new NotImplementedException(); } }
    }

    public static class PlayerPrefs
    {
        public static string GetString(string key, string defaultValue) { throw new NotImplementedException(); }
        public static void SetString(string key, string value) { throw new NotImplementedException(); }
    }

    public sealed class GUILayoutOption { }

    public static class GUILayout
    {
        public static void Label(string text, params GUILayoutOption[] options) { throw new NotImplementedException(); }
        public static bool Button(string text, params GUILayoutOption[] options) { throw new NotImplementedException(); }
    }

    public static class GUI
    {
        public static bool enabled { get { throw new NotImplementedException(); } set { throw new NotImplementedException(); } }
    }

    [AttributeUsage(AttributeTargets.Field)]
    public sealed class SerializeField : Attribute { }

    [AttributeUsage(AttributeTargets.Field)]
    public sealed class TooltipAttribute : Attribute
    {
        public TooltipAttribute(string tooltip) { }
    }
}

namespace UnityEngine.Networking
{
    public class DownloadHandler : IDisposable
    {
        public string text { get { throw new NotImplementedException(); } }
        public void Dispose() { }
    }

    public sealed class DownloadHandlerBuffer : DownloadHandler { }

    public class UploadHandler : IDisposable
    {
        public void Dispose() { }
    }

    public sealed class UploadHandlerRaw : UploadHandler
    {
        public UploadHandlerRaw(byte[] data) { throw new NotImplementedException(); }
    }

    public sealed class UnityWebRequestAsyncOperation : AsyncOperation { }

    public class UnityWebRequest : IDisposable
    {
        public enum Result { InProgress, Success, ConnectionError, ProtocolError, DataProcessingError }

        public UnityWebRequest(string url, string method) { throw new NotImplementedException(); }
        public DownloadHandler downloadHandler { get; set; }
        public UploadHandler uploadHandler { get; set; }
        public Result result { get { throw new NotImplementedException(); } }
        public string error { get { throw new NotImplementedException(); } }
        public long responseCode { get { throw new NotImplementedException(); } }
        public void SetRequestHeader(string name, string value) { throw new NotImplementedException(); }
        public UnityWebRequestAsyncOperation SendWebRequest() { throw new NotImplementedException(); }
        public void Abort() { throw new NotImplementedException(); }
        public void Dispose() { }
    }
}
