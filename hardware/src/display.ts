/**
 * A character display at the reader: shows whose card opened the door, why it did not, and the
 * resource's name while idle. show() gets the lines already laid out for its size.
 */
export interface Display {
  readonly description: string;
  readonly columns: number;
  readonly rows: number;
  /** Opens the hardware and clears the display. */
  open(): Promise<void>;
  /** Shows exactly `rows` lines of at most `columns` characters (layoutLines makes them). */
  show(lines: readonly string[]): Promise<void>;
  /** Clears the display (backlight off) and releases the hardware. Safe to call twice. */
  close(): Promise<void>;
}
