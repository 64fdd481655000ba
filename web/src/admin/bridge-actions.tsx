import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiError, ResourceStatus } from '../api';
import { LocalhostWarning } from '../localhost-warning';
import { adminApi, type PairingCode, type ResourceRecord } from './admin-api';

export const clock = (iso: string) =>
  new Date(iso).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit' });

export type Act = (what: string, work: () => Promise<unknown>) => Promise<void>;

/**
 * What the dashboard and the resources page do to a bridge: the outcome of the last action (a
 * notice) and the pairing code being shown.
 */
export function useBridgeControl() {
  const [notice, setNotice] = useState<string | null>(null);
  const [pairing, setPairing] = useState<PairingCode | null>(null);
  const act: Act = async (what, work) => {
    setNotice(null);
    try {
      await work();
      setNotice(what);
    } catch (e) {
      setNotice(`${what} failed: ${(e as ApiError).message}`);
    }
  };
  const pair = async (r: ResourceRecord) => {
    setNotice(null);
    try {
      setPairing(await adminApi.pairingCode(r.id));
    } catch (e) {
      setNotice(`Pairing failed: ${(e as ApiError).message}`);
    }
  };
  return { notice, setNotice, pairing, closePairing: () => setPairing(null), act, pair };
}

/**
 * The remote controls of one resource, each named after it ("Unlock Front door"): unlock or
 * switch on (the plain switch-on with the code admins see; the log names the admin), switch off,
 * pair a bridge, rotate its key (the agent on the old key is cut off at once), its sticker.
 */
export function BridgeButtons(props: {
  r: ResourceRecord;
  s: ResourceStatus | undefined;
  act: Act;
  pair: (r: ResourceRecord) => void;
}) {
  const { r, s, act } = props;
  const door = r.controlType === 'door';
  return (
    <div class="actions">
      {s?.bridge && (
        <button
          type="button"
          class="primary"
          disabled={!s.online}
          onClick={() =>
            void act(`${door ? 'Unlocked' : 'Switched on'} ${r.name}`, () => adminApi.remoteSwitchOn(r))
          }
        >
          {door ? `Unlock ${r.name}` : `Switch on ${r.name}`}
        </button>
      )}
      {s?.bridge && !door && s.relay === 'on' && (
        <button
          type="button"
          class="secondary"
          onClick={() => void act(`Switched off ${r.name}`, () => adminApi.switchOff(r.id))}
        >
          {`Switch off ${r.name}`}
        </button>
      )}
      <button type="button" class="secondary" onClick={() => props.pair(r)}>
        {`Pair a bridge for ${r.name}`}
      </button>
      {s?.bridge && (
        <button
          type="button"
          class="secondary"
          onClick={() => {
            if (confirm(`Rotate the key of ${r.name}? Its agent is cut off until paired again.`)) {
              void act(`New key for ${r.name}: pair its Pi again`, () => adminApi.rotateKey(r.id));
            }
          }}
        >
          {`Rotate key of ${r.name}`}
        </button>
      )}
      <a href={`/stickers?ids=${r.id}`}>Sticker</a>
    </div>
  );
}

/** The one line to run on the Pi, and the same line as a QR code for a phone. */
export function PairingPanel(props: { pairing: PairingCode; name: string; onClose: () => void }) {
  const { pairing } = props;
  const section = useRef<HTMLElement>(null);
  // The button may be far down a long page: bring the new code into view.
  useEffect(() => section.current?.scrollIntoView?.({ block: 'nearest' }), [pairing.code]);
  return (
    <section aria-labelledby="pair-h" class="pairing" ref={section}>
      <h2 id="pair-h">Pair a bridge for {props.name}</h2>
      <LocalhostWarning what="this command and its QR code" />
      <p>
        On the Pi, run this one line (valid until {clock(pairing.expiresAt)}, once). It fetches the bridge key
        and writes the agent's config:
      </p>
      <div class="pairing-body">
        <label class="grow">
          Pairing command
          <textarea class="command" readOnly rows={2} value={pairing.command} />
        </label>
        <QrCode text={pairing.command} label="QR code of the line, for a phone" />
      </div>
      <p class="muted">Scan the QR code with a phone to carry the line to the Pi's terminal.</p>
      <button type="button" class="secondary" onClick={props.onClose}>
        Close
      </button>
    </section>
  );
}

type QrModules = { size: number; dark: (row: number, col: number) => boolean };

/**
 * A QR code drawn as one SVG path. The encoder is loaded on first use, as a chunk of its own: the
 * member pages never download it, and admin pages only when a code is shown.
 */
export function QrCode({ text, label }: { text: string; label: string }) {
  const [modules, setModules] = useState<QrModules | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    import('qrcode').then(
      (QRCode) => {
        const qr = QRCode.create(text, { errorCorrectionLevel: 'M' });
        if (live)
          setModules({ size: qr.modules.size, dark: (row, col) => Boolean(qr.modules.get(row, col)) });
      },
      () => setFailed(true),
    );
    return () => {
      live = false;
    };
  }, [text]);
  if (failed) return <p class="muted">The QR code could not be drawn; copy the line instead.</p>;
  if (!modules) return <p role="status">Drawing the QR code…</p>;
  // A quiet zone of 4 modules on white, as scanners expect (ISO/IEC 18004, 9.1), in dark mode too.
  const quiet = 4;
  const n = modules.size + 2 * quiet;
  let d = '';
  for (let row = 0; row < modules.size; row++) {
    for (let col = 0; col < modules.size; col++) {
      if (modules.dark(row, col)) d += `M${col + quiet} ${row + quiet}h1v1h-1z`;
    }
  }
  return (
    <svg class="qr" role="img" aria-label={label} viewBox={`0 0 ${n} ${n}`} width={200} height={200}>
      <rect width={n} height={n} fill="#fff" />
      <path d={d} fill="#000" shape-rendering="crispEdges" />
    </svg>
  );
}
