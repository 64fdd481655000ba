import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiError, ResourceStatus } from '../api';
import { locale, t } from '../i18n/i18n';
import { LocalhostWarning } from '../localhost-warning';
import { adminApi, type PairingCode, type ResourceRecord } from './admin-api';

export const clock = (iso: string) =>
  new Date(iso).toLocaleTimeString(locale(), { hour: '2-digit', minute: '2-digit', second: '2-digit' });

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
      setNotice(t('admin.bridge_actions.failed', { what, error: (e as ApiError).message }));
    }
  };
  const pair = async (r: ResourceRecord) => {
    setNotice(null);
    try {
      setPairing(await adminApi.pairingCode(r.id));
    } catch (e) {
      setNotice(t('admin.bridge_actions.pairingFailed', { error: (e as ApiError).message }));
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
            void act(
              t(door ? 'admin.bridge_actions.unlocked' : 'admin.bridge_actions.switchedOn', { name: r.name }),
              () => adminApi.remoteSwitchOn(r),
            )
          }
        >
          {t(door ? 'admin.bridge_actions.unlock' : 'admin.bridge_actions.switchOn', { name: r.name })}
        </button>
      )}
      {s?.bridge && !door && s.relay === 'on' && (
        <button
          type="button"
          class="secondary"
          onClick={() =>
            void act(t('admin.bridge_actions.switchedOff', { name: r.name }), () => adminApi.switchOff(r.id))
          }
        >
          {t('admin.bridge_actions.switchOff', { name: r.name })}
        </button>
      )}
      <button type="button" class="secondary" onClick={() => props.pair(r)}>
        {t('admin.bridge_actions.pair', { name: r.name })}
      </button>
      {s?.bridge && (
        <button
          type="button"
          class="secondary"
          onClick={() => {
            if (confirm(t('admin.bridge_actions.confirmRotate', { name: r.name }))) {
              void act(t('admin.bridge_actions.rotated', { name: r.name }), () => adminApi.rotateKey(r.id));
            }
          }}
        >
          {t('admin.bridge_actions.rotate', { name: r.name })}
        </button>
      )}
      <a href={`/stickers?ids=${r.id}`}>{t('admin.bridge_actions.sticker')}</a>
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
      <h2 id="pair-h">{t('admin.bridge_actions.pairHeading', { name: props.name })}</h2>
      <LocalhostWarning what={t('admin.bridge_actions.thisCommand')} />
      <p>{t('admin.bridge_actions.runLine', { time: clock(pairing.expiresAt) })}</p>
      <div class="pairing-body">
        <label class="grow">
          {t('admin.bridge_actions.pairingCommand')}
          <textarea class="command" readOnly rows={2} value={pairing.command} />
        </label>
        <QrCode text={pairing.command} label={t('admin.bridge_actions.qrLabel')} />
      </div>
      <p class="muted">{t('admin.bridge_actions.scan')}</p>
      <button type="button" class="secondary" onClick={props.onClose}>
        {t('admin.bridge_actions.close')}
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
  if (failed) return <p class="muted">{t('admin.bridge_actions.qrFailed')}</p>;
  if (!modules) return <p role="status">{t('admin.bridge_actions.drawing')}</p>;
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
