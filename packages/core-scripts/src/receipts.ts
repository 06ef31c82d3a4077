import { randomBytes } from 'node:crypto';

/**
 * The receipt of one reliable-queue delivery: `<delivery count>.<token>.<position>`, where the
 * token (16 URL-safe characters) is made once per receive call and the position (from 1) is the
 * message's place in that batch, so no two leased messages share a receipt. The `leases` Lua
 * include writes the same format (`respire_receipt`).
 */
const RECEIPT = /^\d+\.[A-Za-z0-9_-]{16}\.\d{1,4}$/;

/** A fresh receipt token for one receive call: 12 random bytes, 16 URL-safe characters. */
export function newReceiptToken(): string {
  return randomBytes(12).toString('base64url');
}

/** The receipt the script stored for the message at `position` (from 1) of a batch. */
export function receiptOf(deliveryCount: number, token: string, position: number): string {
  return `${deliveryCount}.${token}.${position}`;
}

/** True when `value` has the shape of a receipt (it may still be expired or completed). */
export function isReceipt(value: unknown): value is string {
  return typeof value === 'string' && RECEIPT.test(value);
}
