export { buildServiceClient, serviceClientBundle, type ServiceClientBundle } from './bundle';
