export { sanitizeImageInput, type SanitizedImage } from './sanitize';
export { fitEditInputs, type FittedEdit } from './fit';
