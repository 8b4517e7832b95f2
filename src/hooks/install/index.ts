export { ALL_TARGETS, planInstall, planUninstall, type Change, type Target } from './plan';
