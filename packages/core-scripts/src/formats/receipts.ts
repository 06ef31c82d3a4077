// Receipts and the deadlines-index members that hold them: the one writer and reader in TypeScript
// (lua/includes/receipts.lua is the one in Lua; test/formats.test.ts checks that they agree).
import { randomBytes } from 'node:crypto';

/**
 * The receipt of a leased delivery is `<delivery count>.<token>.<position>`: the token (16
 * URL-safe characters) is made once per receive call and the position (from 1) is the message's
 * place in that batch, so no two leased messages share a receipt. The deadlines index holds one
 * member per delivered message: `<entry ID>:<receipt>` while leased, `<entry ID>:<delivery count>`
 * once NACK revoked the receipt.
 */
const RECEIPT = /^\d+\.[A-Za-z0-9_-]{16}\.\d{1,4}$/;
const MEMBER = /^([^:]+):(\d+)(.*)$/s;

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

/** The deadlines-index member of an entry: with a receipt while leased, with its delivery count once revoked. */
export function leaseMember(entryId: string, state: string | number): string {
  return `${entryId}:${state}`;
}

/** One member of a deadlines index, read. */
export interface LeaseMember {
  readonly entryId: string;
  readonly deliveryCount: number;
  /** The receipt while leased; undefined once NACK revoked it. */
  readonly receipt: string | undefined;
}

/** Reads a deadlines-index member; undefined for a member of neither form. */
export function parseLeaseMember(member: string): LeaseMember | undefined {
  const match = MEMBER.exec(member);
  if (match === null) return undefined;
  const [, entryId, count, rest] = match as unknown as [string, string, string, string];
  return { entryId, deliveryCount: Number(count), receipt: rest === '' ? undefined : count + rest };
}
