// A Windows hook's output is read as UTF-8 text without its byte-order mark and with LF line ends.
import { describe, expect, it } from 'vitest';
import { windowsText } from '../../src/run/runner';

describe('windowsText', () => {
  it("a Windows hook's output loses its byte-order mark and CRLF line ends", () => {
    expect(windowsText('\ufeff{"a":1}\r\nline\r\n', true)).toBe('{"a":1}\nline\n');
    expect(windowsText('\ufeffx\r\n', false)).toBe('\ufeffx\r\n');
  });
});
