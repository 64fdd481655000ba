export type RelayState = 'on' | 'off';

/**
 * A switched output: the door strike or the machine's power.
 * Every driver starts in the safe state (off) and returns to it on close().
 */
export interface Relay {
  /** Human-readable description for logs and the agent's status message. */
  readonly description: string;
  /** Opens the hardware and drives the output to the safe state (off). */
  open(): Promise<void>;
  /** Switches the output; resolves once the hardware has switched. */
  set(state: RelayState): Promise<void>;
  /** The state last switched to. */
  get(): RelayState;
  /** Drives the output off and releases the hardware. Safe to call twice. */
  close(): Promise<void>;
  /**
   * Whether the link to the hardware works now: true, or what is wrong (board unplugged, the
   * GPIO helper gone). Drivers without a link that can break leave it out.
   */
  healthy?(): true | string;
}
