// A small JSON reader and form encoder, so the SDK has no package dependency (Unity and Godot ship
// different JSON libraries). Objects become Dictionary<string, object>, arrays List<object>, numbers
// double, and the rest string, bool or null.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace Chargeport
{
    internal static class Json
    {
        public static object Parse(string text)
        {
            var reader = new Reader(text);
            var value = reader.ReadValue();
            reader.SkipWhitespace();
            if (!reader.AtEnd) throw new FormatException("Unexpected text after the JSON value");
            return value;
        }

        private sealed class Reader
        {
            private readonly string _text;
            private int _at;

            public Reader(string text) { _text = text; }

            public bool AtEnd { get { return _at >= _text.Length; } }

            public void SkipWhitespace()
            {
                while (!AtEnd && char.IsWhiteSpace(_text[_at])) _at++;
            }

            public object ReadValue()
            {
                SkipWhitespace();
                if (AtEnd) throw new FormatException("Unexpected end of JSON");
                var c = _text[_at];
                if (c == '{') return ReadObject();
                if (c == '[') return ReadArray();
                if (c == '"') return ReadString();
                if (Take("true")) return true;
                if (Take("false")) return false;
                if (Take("null")) return null;
                return ReadNumber();
            }

            private bool Take(string word)
            {
                if (string.CompareOrdinal(_text, _at, word, 0, word.Length) != 0) return false;
                _at += word.Length;
                return true;
            }

            private void Expect(char c)
            {
                SkipWhitespace();
                if (AtEnd || _text[_at] != c) throw new FormatException("Expected '" + c + "' at " + _at);
                _at++;
            }

            private Dictionary<string, object> ReadObject()
            {
                var result = new Dictionary<string, object>();
                Expect('{');
                SkipWhitespace();
                if (!AtEnd && _text[_at] == '}') { _at++; return result; }
                while (true)
                {
                    SkipWhitespace();
                    var key = ReadString();
                    Expect(':');
                    result[key] = ReadValue();
                    SkipWhitespace();
                    if (!AtEnd && _text[_at] == ',') { _at++; continue; }
                    Expect('}');
                    return result;
                }
            }

            private List<object> ReadArray()
            {
                var result = new List<object>();
                Expect('[');
                SkipWhitespace();
                if (!AtEnd && _text[_at] == ']') { _at++; return result; }
                while (true)
                {
                    result.Add(ReadValue());
                    SkipWhitespace();
                    if (!AtEnd && _text[_at] == ',') { _at++; continue; }
                    Expect(']');
                    return result;
                }
            }

            private string ReadString()
            {
                Expect('"');
                var sb = new StringBuilder();
                while (true)
                {
                    if (AtEnd) throw new FormatException("Unterminated string");
                    var c = _text[_at++];
                    if (c == '"') return sb.ToString();
                    if (c != '\\') { sb.Append(c); continue; }
                    var e = _text[_at++];
                    switch (e)
                    {
                        case 'n': sb.Append('\n'); break;
                        case 't': sb.Append('\t'); break;
                        case 'r': sb.Append('\r'); break;
                        case 'b': sb.Append('\b'); break;
                        case 'f': sb.Append('\f'); break;
                        case 'u':
                            sb.Append((char)int.Parse(_text.Substring(_at, 4), NumberStyles.HexNumber, CultureInfo.InvariantCulture));
                            _at += 4;
                            break;
                        default: sb.Append(e); break;
                    }
                }
            }

            private double ReadNumber()
            {
                var start = _at;
                while (!AtEnd && "+-0123456789.eE".IndexOf(_text[_at]) >= 0) _at++;
                if (start == _at) throw new FormatException("Unexpected character at " + start);
                return double.Parse(_text.Substring(start, _at - start), NumberStyles.Float, CultureInfo.InvariantCulture);
            }
        }

        public static string Str(Dictionary<string, object> obj, string key)
        {
            object value;
            return obj != null && obj.TryGetValue(key, out value) && value != null ? Convert.ToString(value, CultureInfo.InvariantCulture) : null;
        }

        public static int Int(Dictionary<string, object> obj, string key, int fallback)
        {
            object value;
            return obj != null && obj.TryGetValue(key, out value) && value is double ? (int)(double)value : fallback;
        }

        public static Dictionary<string, object> Obj(Dictionary<string, object> obj, string key)
        {
            object value;
            return obj != null && obj.TryGetValue(key, out value) ? value as Dictionary<string, object> : null;
        }

        public static List<object> Arr(Dictionary<string, object> obj, string key)
        {
            object value;
            return obj != null && obj.TryGetValue(key, out value) && value is List<object> ? (List<object>)value : new List<object>();
        }

        public static string Quote(string value)
        {
            var sb = new StringBuilder("\"");
            foreach (var c in value)
            {
                if (c == '"' || c == '\\') sb.Append('\\').Append(c);
                else if (c < ' ') sb.AppendFormat(CultureInfo.InvariantCulture, "\\u{0:x4}", (int)c);
                else sb.Append(c);
            }
            return sb.Append('"').ToString();
        }
    }
}
