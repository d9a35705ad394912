/**
 * This boot of the machine (Linux's boot id; "" elsewhere). Files written and not synced may be
 * lost by a power loss, so what was vouched for before a reboot is not trusted after it.
 */
import { readFileSync } from "node:fs";

export function bootId(): string {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    return "";
  }
}
