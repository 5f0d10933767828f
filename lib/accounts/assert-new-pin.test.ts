import { describe, expect, it } from 'vitest';
import { isTrivialPin } from './assert-new-pin';

describe('choosing a PIN', () => {
  it.each([
    '000000',
    '111111',
    '999999',
    '123456',
    '654321',
    '012345',
    '987654',
    '890123',
    '210987',
    '121212',
    '909090',
    '123123',
    '770770',
    '112233',
    '147258',
  ])('%s is too simple', (pin) => expect(isTrivialPin(pin)).toBe(true));

  it.each(['482916', '730481', '519273', '135790', '271828', '120394'])('%s is fine', (pin) => expect(isTrivialPin(pin)).toBe(false));
});
