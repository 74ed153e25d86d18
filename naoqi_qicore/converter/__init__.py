"""converter layer of naoqi_qicore."""
