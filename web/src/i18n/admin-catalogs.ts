import adminDe from './admin-de.json';
import adminEn from './admin-en.json';
import { type AdminCatalog, addCatalogs, type Language } from './i18n';

// The admin console's words, in its own chunk; every language has every key of the English ones.
addCatalogs({ en: adminEn, de: adminDe } satisfies Record<Language, AdminCatalog>);
