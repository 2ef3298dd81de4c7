export { loadServiceClient, serviceClientBundle, ServiceClientNotBuiltError, type ServiceClientBundle } from './bundle';
