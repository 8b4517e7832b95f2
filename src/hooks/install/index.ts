export { ALL_TARGETS, planInstall, planUninstall, type Change, type InstallPlan, type Target } from './plan';
