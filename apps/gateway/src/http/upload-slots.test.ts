import { AppError } from '@promptpix/core';
import { createUploadSlots, UploadSlotMessages } from './upload-slots';

const refusal = (take: () => unknown) => {
  try {
    take();
    return null;
  } catch (error) {
    return error instanceof AppError ? { kind: error.kind, message: error.message } : error;
  }
};

describe('upload slots', () => {
  it('an account past its own limit is refused (429) while others still get slots', () => {
    const slots = createUploadSlots({ perProcess: 4, perAccount: 2 });
    slots.take('a');
    slots.take('a');
    expect(refusal(() => slots.take('a'))).toEqual({ kind: 'rate_limited', message: UploadSlotMessages.account });
    expect(refusal(() => slots.take('b'))).toBeNull();
  });

  it('a full process is a 503; a slot given back is taken again, and giving back twice counts once', () => {
    const slots = createUploadSlots({ perProcess: 2, perAccount: 2 });
    const release = slots.take('a');
    slots.take('b');
    expect(refusal(() => slots.take('c'))).toEqual({ kind: 'unavailable', message: UploadSlotMessages.busy });
    release();
    release();
    expect(slots.inUse()).toBe(1);
    expect(refusal(() => slots.take('c'))).toBeNull();
    expect(refusal(() => slots.take('d'))).toEqual({ kind: 'unavailable', message: UploadSlotMessages.busy });
  });
});
